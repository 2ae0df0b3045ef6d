// Routes of the admin's resources page (/admin/resources): the list, an upload (multipart), a text
// or link, and delete. The same services as POST/DELETE /v1/resources.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { listCampaigns } from '../../../modules/campaigns/service';
import { TextOrLinkBody, type TextOrLinkInput } from '../../../modules/resources/model';
import { createFileResource, createTextOrLink, deleteResource, listResources } from '../../../modules/resources/service';
import { schemaErrors, type FormErrors } from '../../forms';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import type { AdminKit } from '../kit';
import { AdminResourcesPage, RESOURCES, type ResourceFormValues } from './list';

/** An AppError's message beside the field it names (`title: …`), else above the form. */
function errorsOf(error: unknown): FormErrors {
  if (!(error instanceof AppError)) throw error;
  const details = Array.isArray(error.details) ? (error.details as { field: string; message: string }[]) : [];
  return details.length > 0 ? Object.fromEntries(details.map((d) => [d.field, d.message])) : { _form: error.message };
}

export function adminResourceRoutes(ctx: AppContext, kit: AdminKit) {
  async function show(page: AdminPage, extra: { done?: string; problem?: { form: 'file' | 'text'; errors: FormErrors }; values?: ResourceFormValues; status?: number } = {}) {
    const [resources, campaigns] = await Promise.all([listResources(ctx.sql, { limit: 200 }), listCampaigns(ctx.sql, { limit: 500 })]);
    return render(<AdminResourcesPage page={page} resources={resources} campaigns={campaigns} done={extra.done} problem={extra.problem} values={extra.values} />, { status: extra.status });
  }

  return new Elysia({ detail: { hide: true } })
    .get(RESOURCES, ({ request }) =>
      kit.page(request, (page) => {
        const done = new URL(request.url).searchParams.get('done') ?? undefined;
        return show(page, { done });
      }),
    )
    .post(RESOURCES, ({ request, body }) =>
      kit.form(request, body, RESOURCES, async (page, form) => {
        const file = (body as Record<string, unknown> | null)?.file;
        try {
          if (!(file instanceof Blob) || file.size === 0) throw new AppError('invalid_body', 'file: choose a file', [{ field: 'file', message: 'choose a file to upload' }]);
          const name = file instanceof File ? file.name : 'file';
          const title = form.title?.trim() || name;
          await createFileResource(ctx.sql, ctx.resourceStores, { bytes: new Uint8Array(await file.arrayBuffer()), fileName: name, title: title.slice(0, 200), campaignId: form.campaignId || undefined });
        } catch (error) {
          const errors = errorsOf(error);
          return show(page, { problem: { form: 'file', errors: errors._form && !errors.file ? { file: errors._form } : errors }, status: (error as AppError).status });
        }
        return seeOther(`${RESOURCES}?done=uploaded`);
      }),
    )
    .post(`${RESOURCES}/text`, ({ request, body }) =>
      kit.form(request, body, RESOURCES, async (page, form) => {
        const values: ResourceFormValues = { kind: form.kind, title: form.title, body: form.body, url: form.url, campaignId: form.campaignId };
        const input = {
          kind: form.kind === 'link' ? 'link' : 'text',
          title: (form.title ?? '').trim(),
          ...(form.kind === 'link' ? { url: (form.url ?? '').trim() } : { body: form.body ?? '' }),
          ...(form.campaignId ? { campaignId: form.campaignId } : {}),
        };
        const schema = TextOrLinkBody.anyOf[input.kind === 'link' ? 1 : 0];
        const errors = schemaErrors(schema, input);
        if (Object.keys(errors).length > 0) return show(page, { problem: { form: 'text', errors }, values, status: 400 });
        try {
          await createTextOrLink(ctx.sql, input as TextOrLinkInput);
        } catch (error) {
          return show(page, { problem: { form: 'text', errors: errorsOf(error) }, values, status: (error as AppError).status });
        }
        return seeOther(`${RESOURCES}?done=uploaded`);
      }),
    )
    .post(`${RESOURCES}/:id/delete`, ({ request, body, params }) =>
      kit.form(request, body, RESOURCES, async () => {
        await deleteResource(ctx.sql, ctx.resourceStores, params.id);
        return seeOther(`${RESOURCES}?done=deleted`);
      }),
    );
}
