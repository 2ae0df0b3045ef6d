// The admin's 1099 page (/admin/tax): a calendar year's USD payees from necPayees() (the query the
// CSV reads), who goes in the 1099-NEC file, who was paid 600.00 USD or more without a W-9, and the
// download. Shows no TIN beyond its last four digits.
import { NEC_THRESHOLD_CENTS, type NecPayee } from '../../../modules/tax/nec';
import { Notice } from '../../layout';
import type { AdminPage } from '../../session';
import { SelectField } from '../../forms';
import { Badge, EmptyState, formatMoney, Kpi, MoneyCell, NumHead, Trunc, type Tone } from '../../ui';
import { AdminLayout } from '../kit';
import { formName } from '../kit/tax-form';

export const TAX = '/admin/tax';
export const TAX_CSV = '/admin/tax.csv';

/** What the row means for the 1099 file. */
function fileStatus(p: NecPayee): { tone: Tone; label: string; title: string } {
  if (p.reportable) return { tone: 'green', label: 'In the file', title: 'A W-9 payee paid 600.00 USD or more: a row of the 1099-NEC file' };
  if (p.paidCents < NEC_THRESHOLD_CENTS) return { tone: 'grey', label: 'Under $600', title: 'Paid less than 600.00 USD this year: no 1099-NEC' };
  if (p.form === null) return { tone: 'red', label: 'No form', title: 'Paid 600.00 USD or more with no tax form on file: ask the partner for one' };
  return { tone: 'blue', label: `${formName(p.form)}: not reported`, title: 'A foreign payee (W-8 form on file): no 1099-NEC' };
}

export function TaxPage(props: { page: AdminPage; year: number; years: number[]; payees: NecPayee[]; yearError?: string; keyOn: boolean }) {
  const { year, payees } = props;
  const reportable = payees.filter((p) => p.reportable);
  const missing = payees.filter((p) => p.form === null && p.paidCents >= NEC_THRESHOLD_CENTS);
  const total = reportable.reduce((sum, p) => sum + p.paidCents, 0n);
  return (
    <AdminLayout page={props.page} title="Tax" current={TAX}>
      <div class="page-head">
        <h1>1099-NEC</h1>
        {props.keyOn && (
          <div class="actions">
            <a class="button" id="nec-download" href={`${TAX_CSV}?year=${year}`} download={`1099-nec-${year}.csv`} safe>
              {`Download the ${year} CSV`}
            </a>
          </div>
        )}
      </div>
      <p class="hint">
        One row per W-9 payee paid at least $600.00 in USD in the calendar year (payouts by the day they were paid, UTC), for your filing
        service or accountant. Partnerd does not file. Each download is in the audit log.
      </p>
      <form method="get" action={TAX} class="range" aria-label="Year">
        <SelectField name="year" label="Calendar year" value={String(year)} options={props.years.map((y) => ({ value: String(y), label: String(y) }))} error={props.yearError} />
        <button type="submit" class="secondary">
          Show
        </button>
      </form>
      {!props.keyOn && <Notice kind="error" text="ENCRYPTION_KEY is not set in the service's environment: the tax ids cannot be read, so the CSV cannot be made." />}
      <ul class="cards kpis" id="nec-kpis">
        <Kpi label="Paid in USD" value={String(payees.length)} note={payees.length === 1 ? 'payee' : 'payees'} />
        <Kpi label="In the 1099-NEC file" value={String(reportable.length)} note={formatMoney(total, 'USD')} id="nec-reportable" />
        <Kpi label="$600 or more, no form" value={String(missing.length)} note={missing.length ? 'ask them for a tax form' : 'none'} id="nec-missing" />
      </ul>
      {missing.length > 0 && (
        <p class="notice error" id="nec-missing-note" role="status" safe>
          {`${missing.map((p) => p.partnerName).join(', ')} ${missing.length === 1 ? 'was' : 'were'} paid $600.00 or more in ${year} without a tax form on file: ask for one; a US payee is in the file once their W-9 arrives.`}
        </p>
      )}
      {payees.length === 0 ? (
        <EmptyState title={`No USD payouts paid in ${year}`} text="Payees appear here once a USD payout to them is marked paid in that year." />
      ) : (
        <PayeesTable payees={payees} year={year} />
      )}
    </AdminLayout>
  );
}

function PayeesTable(props: { payees: NecPayee[]; year: number }) {
  return (
    <div class="table-wrap">
      <table id="nec-payees" class="stack">
        <caption class="vh" safe>{`Payees paid in USD in ${props.year}, most paid first`}</caption>
        <thead>
          <tr>
            <th scope="col">Partner</th>
            <NumHead label="Paid (USD)" />
            <NumHead label="Payouts" />
            <th scope="col">Tax form</th>
            <th scope="col">TIN</th>
            <th scope="col">1099-NEC</th>
          </tr>
        </thead>
        <tbody>
          {props.payees.map((p) => {
            const status = fileStatus(p);
            return (
              <tr data-id={p.partnerId}>
                <td class="lead">
                  <Trunc text={p.legalName && p.legalName !== p.partnerName ? `${p.partnerName} (${p.legalName})` : p.partnerName} href={`/admin/partners/${encodeURIComponent(p.partnerId)}`} />
                </td>
                <MoneyCell amount={p.paidCents} currency="USD" label="Paid (USD)" />
                <td class="num" data-label="Payouts">
                  {p.payoutCount}
                </td>
                <td data-label="Tax form">
                  {p.form ? formName(p.form) : 'None'}
                </td>
                <td data-label="TIN" class="nowrap">
                  {p.tinLast4 ? `${(p.tinType ?? '').toUpperCase()} ending in ${p.tinLast4}` : '—'}
                </td>
                <td class="badge-cell" data-label="1099-NEC">
                  <Badge {...status} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
