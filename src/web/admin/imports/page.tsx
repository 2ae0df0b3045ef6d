// The admin's import page (/admin/imports): choose the platform and the export's CSV files, see the
// dry run (what would be created, per kind, and every problem row), then import. The dry run keeps
// the checked files on the server for this session; "Import now" is a form of its own posting their
// token (and the choices the check was made with), so it works the same with or without JavaScript
// (with htmx the report comes into the page in place).
import type { ImportAnswer } from '../../../workflows/import-program';
import { IMPORT_SOURCES, type ImportSource } from '../../../modules/imports/rows';
import { filesOf } from '../../../modules/imports/sources';
import { CsrfInput } from '../../forms';
import { Notice } from '../../layout';
import type { AdminPage } from '../../session';
import { AdminLayout } from '../kit';

export const IMPORTS = '/admin/imports';

export const SOURCE_NAMES: Record<ImportSource, string> = { rewardful: 'Rewardful', firstpromoter: 'FirstPromoter', tolt: 'Tolt', partnerstack: 'PartnerStack' };

/** The checked upload waiting for "Import now": its token and the choices the dry run was made with. */
export type ImportConfirm = { upload: string; source: ImportSource; campaignId: string; invite: string };

export type ImportOutcome = { report: ImportAnswer; confirm?: ImportConfirm } | { error: string };

export function AdminImportsPage(props: { page: AdminPage; campaigns: { id: string; name: string }[]; outcome?: ImportOutcome; values?: Record<string, string> }) {
  const v = props.values ?? {};
  return (
    <AdminLayout page={props.page} title="Import a program" current={IMPORTS} scripts={['/assets/htmx.js']}>
      <h1>Import a program</h1>
      <p class="page-intro">
        Move partners, their customers and their commissions in from Rewardful, FirstPromoter, Tolt or PartnerStack. Check first: nothing is written until you
        confirm, and importing the same files again changes nothing. See docs/migrating.md for how to export from each platform.
      </p>
      <form
        method="post"
        action={IMPORTS}
        enctype="multipart/form-data"
        id="import-form"
        class="form"
        hx-post={IMPORTS}
        hx-encoding="multipart/form-data"
        hx-target="#import-report"
        hx-swap="innerHTML"
      >
        <CsrfInput token={props.page.csrf} />
        <input type="hidden" name="dryRun" value="true" />
        <div class="field">
          <label for="i-source">Moving from</label>
          <select id="i-source" name="source">
            {IMPORT_SOURCES.map((s) => (
              <option value={s} selected={v.source === s} safe>
                {`${SOURCE_NAMES[s]}: ${filesOf(s).join(', ')}`}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="i-files">Export files</label>
          <small id="i-files-hint">Choose the three CSV files at once, under the names the platform gave them.</small>
          <input id="i-files" type="file" name="files" multiple accept=".csv,text/csv" required aria-describedby="i-files-hint" />
        </div>
        <div class="field">
          <label for="i-campaign">Campaign the partners join</label>
          <select id="i-campaign" name="campaignId">
            {props.campaigns.map((c) => (
              <option value={c.id} selected={v.campaignId === c.id} safe>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field check">
          <label>
            <input type="checkbox" name="invite" value="true" checked={v.invite === 'true'} /> Email new partners an invite (otherwise they are active at once, with no email)
          </label>
        </div>
        <button type="submit">Check the files</button>
      </form>
      <section id="import-report" aria-live="polite">
        {props.outcome ? <ImportOutcomeView outcome={props.outcome} csrf={props.page.csrf} /> : ''}
      </section>
    </AdminLayout>
  );
}

const KINDS = [
  ['partners', 'Partners'],
  ['links', 'Share links (old tokens)'],
  ['customers', 'Customers'],
  ['commissions', 'Commissions'],
  ['payouts', 'Paid payouts (history)'],
] as const;

/** The report: counts per kind, every problem row, and after a dry run the button that imports. */
export function ImportOutcomeView(props: { outcome: ImportOutcome; csrf: string }) {
  if ('error' in props.outcome) return <Notice kind="error" text={`Nothing was imported: ${props.outcome.error}`} />;
  const r = props.outcome.report;
  const total = Object.values(r.counts).reduce((a, b) => a + b, 0);
  return (
    <div class="import-report" data-dry-run={String(r.dryRun)}>
      <h2>{r.dryRun ? 'Dry run: what the import will do' : 'Imported'}</h2>
      {!r.dryRun && <Notice kind="ok" text={total === 0 ? 'Nothing new: every row was imported before.' : 'The import is done.'} />}
      <div class="table-wrap">
        <table id="import-counts" class="stack">
          <caption class="vh">{r.dryRun ? 'Would be created, per kind' : 'Created, per kind'}</caption>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col" class="num">
                {r.dryRun ? 'Will be created' : 'Created'}
              </th>
            </tr>
          </thead>
          <tbody>
            {KINDS.map(([key, label]) => (
              <tr data-kind={key}>
                <td class="lead">{label}</td>
                <td class="num money" safe>
                  {r.counts[key].toLocaleString('en')}
                </td>
              </tr>
            ))}
            <tr data-kind="skipped">
              <td class="lead">Rows imported before (left as they are)</td>
              <td class="num money" safe>
                {r.skipped.toLocaleString('en')}
              </td>
            </tr>
          </tbody>
        </table>
      </div>
      <h3 safe>{r.problemCount === 0 ? 'No problem rows' : `${r.problemCount.toLocaleString('en')} problem ${r.problemCount === 1 ? 'row' : 'rows'}: skipped, the rest ${r.dryRun ? 'will be' : 'was'} imported`}</h3>
      {r.problems.length > 0 && (
        <div class="table-wrap">
          <table id="import-problems" class="stack">
            <caption class="vh">Problem rows</caption>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col" class="num">
                  Line
                </th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {r.problems.map((p) => (
                <tr>
                  <td data-label="File" safe>
                    {p.file}
                  </td>
                  <td data-label="Line" class="num" safe>
                    {String(p.line)}
                  </td>
                  <td data-label="Why" class="fill" safe>
                    {p.reason}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {r.dryRun && props.outcome.confirm ? (
        <form method="post" action={IMPORTS} id="confirm-form" hx-post={IMPORTS} hx-target="#import-report" hx-swap="innerHTML">
          <CsrfInput token={props.csrf} />
          <input type="hidden" name="upload" value={props.outcome.confirm.upload} />
          <input type="hidden" name="source" value={props.outcome.confirm.source} />
          <input type="hidden" name="campaignId" value={props.outcome.confirm.campaignId} />
          <input type="hidden" name="invite" value={props.outcome.confirm.invite} />
          <input type="hidden" name="dryRun" value="false" />
          <p>
            <small>The checked files are kept on the server for an hour: importing them needs nothing chosen again.</small>
          </p>
          <div class="actions">
            <button type="submit" id="confirm-import" disabled={total === 0}>
              {total === 0 ? 'Nothing to import' : 'Import now'}
            </button>
          </div>
        </form>
      ) : (
        ''
      )}
    </div>
  );
}
