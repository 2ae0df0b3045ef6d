// Routes of the admin's import page (/admin/imports): the page, and the check / import of the chosen
// files (the same workflow as POST /v1/imports). An htmx request gets the report alone.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { listCampaigns } from '../../../modules/campaigns/service';
import { isImportSource } from '../../../modules/imports/rows';
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

  return new Elysia({ detail: { hide: true } })
    .get(IMPORTS, ({ request }) => kit.page(request, (page) => show(page)))
    .post(IMPORTS, ({ request, body }) =>
      kit.form(request, body, IMPORTS, async (page, form) => {
        const partial = request.headers.get('hx-request') === 'true';
        let outcome: ImportOutcome;
        let status = 200;
        try {
          if (!isImportSource(form.source)) throw new AppError('invalid_body', 'choose the platform the files come from');
          const files = filesByName(body);
          const report = await importProgram(ctx, {
            source: form.source,
            dryRun: form.dryRun !== 'false',
            invite: form.invite === 'true',
            campaignId: form.campaignId || undefined,
            files: (name) => files.get(name)?.stream() ?? null,
          });
          outcome = { report };
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          outcome = { error: error.message };
          status = error.status;
        }
        // htmx swaps only a 2xx answer: a refusal is still the report area's content
        if (partial) return render(<ImportOutcomeView outcome={outcome} />);
        return show(page, outcome, form, status);
      }),
    );
}
