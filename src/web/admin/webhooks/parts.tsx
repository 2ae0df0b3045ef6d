// Admin webhooks, the pieces the pages share: the badges (status, health, a delivery's), the
// success rate, the secret shown once, and the endpoint form's fields.
import type { Children } from '@kitajs/html';
import type { EndpointHealth } from '../../../modules/reports/campaigns';
import { EVENT_TYPES, WILDCARD } from '../../../modules/webhooks/events';
import type { Delivery, Endpoint } from '../../../modules/webhooks/service';
import { Field, type FormErrors } from '../../forms';
import { Notice } from '../../layout';
import { type Tone } from '../../ui';
import { ChoicesFieldset } from '../../kit/choices';
import type { Values } from './shared';

export const eventsText = (ep: Endpoint) => (ep.events.includes(WILDCARD) ? 'all events' : ep.events.join(', '));
export const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

export function endpointBadge(ep: Endpoint): { tone: Tone; label: string; title: string } {
  return ep.active
    ? { tone: 'green', label: 'Active', title: 'Active: receives its events as they happen' }
    : { tone: 'grey', label: 'Paused', title: 'Paused: receives nothing until resumed' };
}

/** Healthy, failing, paused, or no deliveries yet, from the newest 50 attempts. */
export function healthBadge(ep: Endpoint, h: EndpointHealth | undefined): { tone: Tone; label: string; title: string } {
  if (!ep.active) return { tone: 'grey', label: 'Paused', title: 'Paused: receives nothing until resumed' };
  if (!h || h.last === null) return { tone: 'grey', label: 'No deliveries yet', title: 'Nothing sent yet: use Send test to try it' };
  if (h.failingStreak > 0) {
    return {
      tone: 'red',
      label: 'Failing',
      title: `Failing: the last ${h.failingStreak === 1 ? 'attempt' : `${h.failingStreak} attempts`} failed; open the delivery log to see why`,
    };
  }
  if (h.finished === 0) return { tone: 'amber', label: 'Sending', title: 'The first delivery is being sent' };
  return { tone: 'green', label: 'Healthy', title: 'Healthy: the last finished attempt succeeded' };
}

/** "96% of the last 50" from finished attempts; "–" when none finished. */
export function successText(h: EndpointHealth | undefined): string {
  if (!h || h.finished === 0) return '–';
  return `${Math.floor((h.succeeded * 100) / h.finished)}% of ${h.finished}`;
}

export function deliveryBadge(d: Delivery): { tone: Tone; label: string; title: string } {
  if (d.status === 'succeeded') return { tone: 'green', label: 'Succeeded', title: 'Succeeded: the receiver answered 2xx' };
  if (d.status === 'failed') return { tone: 'red', label: 'Failed', title: 'Failed: retried automatically with backoff, or retry it from its menu' };
  return { tone: 'amber', label: 'Pending', title: 'Pending: being sent' };
}

export function SecretNotice(props: { id: string; children: Children; secret: string; link?: { href: string; label: string } }) {
  return (
    <div class="notice ok" role="status" id={props.id}>
      <p>{props.children}</p>
      <div class="copy">
        <label class="vh" for="secret">
          Signing secret
        </label>
        <input id="secret" class="secret" value={props.secret} readonly />
        <button type="button" class="secondary" data-copy="#secret">
          Copy
        </button>
      </div>
      {!!props.link && (
        <p>
          <a href={props.link.href} safe>
            {props.link.label}
          </a>
        </p>
      )}
    </div>
  );
}

/** URL, label and events: the create form's fields, and the edit form's. */
export function EndpointFields(props: { values: Values; errors: FormErrors }) {
  const v = props.values;
  const e = props.errors;
  return (
    <>
      {!!e._form && <Notice kind="error" text={e._form} />}
      <div class="narrow">
        <Field name="url" label="URL" hint="HTTPS address that receives signed POSTs" type="url" value={v.url} error={e.url} required />
        <Field name="label" label="Label (optional)" value={v.label} error={e.label} />
      </div>
      <ChoicesFieldset name="events" legend="Events" choices={EVENT_TYPES.map((type) => ({ value: type, label: type }))} ticked={(type) => v.events.includes(type)} error={e.events}>
        <label class="check">
          <input type="checkbox" name="events" value={WILDCARD} checked={v.events.includes(WILDCARD)} /> All events
        </label>
      </ChoicesFieldset>
    </>
  );
}
