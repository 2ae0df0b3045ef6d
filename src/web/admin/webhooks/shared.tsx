// Admin webhooks, what every verb shares: the paths, the done notices, the endpoint form as typed,
// the endpoint of the URL (or the 404 page) and the two confirmations.
import { t } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { getEndpoint, type Endpoint } from '../../../modules/webhooks/service';
import { formList, type FormErrors } from '../../forms';
import { render } from '../../render';
import type { AdminPage } from '../../session';
import { NotFoundPage } from '../kit';

export const LIST = '/admin/webhooks';
export const DONE = {
  tested: 'Test sent: its attempt is at the top of the log.',
  retried: 'Sent again: the new attempt is at the top of the log.',
  paused: 'Endpoint paused: it receives nothing until resumed.',
  resumed: 'Endpoint resumed.',
  saved: 'Endpoint saved.',
  deleted: 'Endpoint deleted, with its delivery log.',
};
export const Params = t.Object({ id: t.String({ maxLength: 64 }) });
export const DeliveryParams = t.Object({ id: t.String({ maxLength: 64 }), deliveryId: t.String({ maxLength: 64 }) });
export const detailPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;
export const deliveryPath = (id: string, deliveryId: string) => `${detailPath(id)}/deliveries/${encodeURIComponent(deliveryId)}`;

export type Values = { url: string; label: string; events: string[] };

export const endpointValues = (ep: Endpoint): Values => ({ url: ep.url, label: ep.label ?? '', events: ep.events });
export const endpointName = (ep: Endpoint) => ep.label || ep.url;

/** The endpoint form as typed, and its problems before the service is asked. */
export function readEndpointForm(form: Record<string, string>, body: unknown): { values: Values; errors: FormErrors } {
  const values: Values = { url: (form.url ?? '').trim(), label: (form.label ?? '').trim(), events: formList(body, 'events') };
  const errors: FormErrors = {};
  if (values.url === '') errors.url = 'required';
  if (values.events.length === 0) errors.events = 'choose at least one event, or all events';
  if (values.label.length > 200) errors.label = 'at most 200 characters';
  return { values, errors };
}

/** The endpoint of the URL, or the 404 page. */
export async function withEndpoint(ctx: AppContext, page: AdminPage, id: string, act: (endpoint: Endpoint) => Promise<Response>): Promise<Response> {
  const endpoint = await getEndpoint(ctx.sql, id).catch((error) => {
    if (error instanceof AppError && error.code === 'not_found') return null;
    throw error;
  });
  if (!endpoint) return render(<NotFoundPage page={page} what="webhook endpoint" back={LIST} />, { status: 404 });
  return act(endpoint);
}

export function rotateConfirm(ep: Endpoint, csrf: string) {
  return {
    title: `Rotate the signing secret of ${endpointName(ep)}`,
    action: `${detailPath(ep.id)}/rotate-secret`,
    button: 'Rotate secret',
    csrf,
    danger: true,
    children: (
      <>
        <p>A new secret is made and shown once. For the next 24 hours every delivery, retries included, is signed with both the new and the old one, so your receiver can switch over; after that, only the new one signs.</p>
        <p>Have the receiver ready to take the new secret, or it will refuse deliveries until it is updated.</p>
      </>
    ),
  };
}

export function deleteConfirm(ep: Endpoint, csrf: string) {
  return {
    title: `Delete ${endpointName(ep)} for good`,
    action: `${detailPath(ep.id)}/delete`,
    button: 'Delete endpoint',
    csrf,
    danger: true,
    children: (
      <>
        <p safe>{`The endpoint ${ep.url} and its whole delivery log are removed; nothing is sent to it again. This cannot be undone.`}</p>
        <p>To stop deliveries but keep the log, pause it instead.</p>
      </>
    ),
  };
}
