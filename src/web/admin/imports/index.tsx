// Routes of the admin's import page (/admin/imports): the page, and the check / import of the chosen
// files (the same workflow as POST /v1/imports). An htmx request gets the report alone. A dry run
// keeps the checked files for the admin's session (modules/imports/uploads.ts): "Import now" posts
// only their token, so confirming works without JavaScript and nothing is chosen again.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { listCampaigns } from '../../../modules/campaigns/service';
import { isImportSource } from '../../../modules/imports/rows';
import { dropUpload, keepUpload, waitingUpload } from '../../../modules/imports/uploads';
import { importProgram } from '../../../workflows/import-program';
import { render } from '../../render';
import type { AdminPage } from '../../session';
import type { AdminKit } from '../kit';
import { AdminImportsPage, IMPORTS, ImportOutcomeView, type ImportOutcome } from './page';

/** The chosen files by name (a multi-file input sends each under its own file name). */
function filesByName(body: unknown): Map<string, Blob> {
  const raw = body && typeof body === 'object' ? (body as Record<string, unknown>).files : undefined;
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const files = new Map<string, Blob>();
  for (const file of list) if (file instanceof File && file.size > 0) files.set(file.name.split(/[\\/]/).pop()!.toLowerCase(), file);
  return files;
}

export function adminImportRoutes(ctx: AppContext, kit: AdminKit) {
  async function show(page: AdminPage, outcome?: ImportOutcome, values?: Record<string, string>, status?: number) {
    const campaigns = (await listCampaigns(ctx.sql, { limit: 500 })).filter((c) => !c.archivedAt);
    return render(<AdminImportsPage page={page} campaigns={campaigns} outcome={outcome} values={values} />, { status });
  }

  /** The chosen files checked (kept for the confirm when the dry run answered) or imported at once. */
  async function checkOrImport(page: AdminPage, form: Record<string, string>, files: Map<string, Blob>): Promise<ImportOutcome> {
    if (!isImportSource(form.source)) throw new AppError('invalid_body', 'choose the platform the files come from');
    const dryRun = form.dryRun !== 'false';
    const choices = { source: form.source, campaignId: form.campaignId ?? '', invite: form.invite === 'true' ? 'true' : 'false' };
    const report = await importProgram(ctx, { ...switches(form), source: form.source, dryRun, files: (name) => files.get(name)?.stream() ?? null });
    if (!dryRun) return { report };
    const kept = new Map<string, Uint8Array>();
    for (const [name, file] of files) kept.set(name, new Uint8Array(await file.arrayBuffer()));
    return { report, confirm: { ...choices, upload: await keepUpload(ctx.sql, page.sessionToken, form.source, kept) } };
  }

  /** "Import now" after a dry run: the files kept for this session under the posted token. */
  async function confirmUpload(page: AdminPage, form: Record<string, string>): Promise<ImportOutcome> {
    const upload = form.upload!.length <= 64 ? await waitingUpload(ctx.sql, page.sessionToken, form.upload!) : null;
    if (!upload) throw new AppError('invalid_body', 'the checked files are no longer kept (an hour passed, they were imported, or another check replaced them): choose them and check again');
    const report = await importProgram(ctx, { ...switches(form), source: upload.source, dryRun: false, files: (name) => (upload.files.has(name) ? new Blob([upload.files.get(name)! as BlobPart]).stream() : null) });
    await dropUpload(ctx.sql, form.upload!);
    return { report };
  }

  const switches = (form: Record<string, string>) => ({ invite: form.invite === 'true', campaignId: form.campaignId || undefined });

  return new Elysia({ detail: { hide: true } })
    .get(IMPORTS, ({ request }) => kit.page(request, (page) => show(page)))
    .post(IMPORTS, ({ request, body }) =>
      kit.form(request, body, IMPORTS, async (page, form) => {
        const partial = request.headers.get('hx-request') === 'true';
        let outcome: ImportOutcome;
        let status = 200;
        try {
          outcome = form.upload ? await confirmUpload(page, form) : await checkOrImport(page, form, filesByName(body));
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          outcome = { error: error.message };
          status = error.status;
        }
        // htmx swaps only a 2xx answer: a refusal is still the report area's content
        if (partial) return render(<ImportOutcomeView outcome={outcome} csrf={page.csrf} />);
        return show(page, outcome, form, status);
      }),
    );
}
