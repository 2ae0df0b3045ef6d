// The rule editor's preview step: what the draft rules would have paid each partner over the last N
// days against what they earned, before the admin saves. The form as typed travels along as hidden
// fields, so "Save campaign" saves exactly what was previewed and "Back to editing" redraws it.
import type { PreviewAnswer } from '../../modules/commissions/preview';
import type { Rule } from '../../modules/campaigns/rules';
import type { Campaign } from '../../modules/campaigns/service';
import { CsrfInput } from '../forms';
import type { AdminPage } from '../session';
import { describeTerms } from '../terms';
import { formatMoney, Kpi, NumHead, Trunc } from '../ui';
import { AdminLayout } from './kit';
import { TermsSummary } from './rule-editor';

export type { PreviewAnswer };

/** Fields of the editor that are not carried to the preview's own form. */
const NOT_CARRIED = new Set(['_csrf', '_preview', '_more', '_edit']);

/** A difference with its sign: "+12.00 EUR", "-3.50 EUR", "0.00 EUR". */
export function signedMoney(amount: string, currency: string): string {
  const text = formatMoney(amount, currency);
  return /^-/.test(text) || /^0(\.0+)? /.test(text) ? text : `+${text}`;
}

const tone = (difference: string) => (/^-/.test(difference) ? 'less' : /^[0.]+$/.test(difference) ? 'same' : 'more');

export function PreviewPage(props: {
  page: AdminPage;
  campaign: Campaign;
  action: string;
  form: Record<string, string>;
  rules: Rule[];
  holdbackDays: number;
  answer: PreviewAnswer;
  names: Map<string, string>;
}) {
  const c = props.campaign;
  const a = props.answer;
  const cur = a.currency;
  const terms = describeTerms({ rules: props.rules, currency: c.currency, holdbackDays: props.holdbackDays });
  const changed = a.partners.filter((p) => !/^-?[0.]+$/.test(p.difference)).length;
  return (
    <AdminLayout page={props.page} title={`Preview ${c.name}`} current="/admin/campaigns">
      <div class="confirm-page preview-page">
        <h1 safe>{`Preview the new rules of ${c.name}`}</h1>
        <p safe>
          {`The campaign's events of the last ${a.days} day${a.days === 1 ? '' : 's'} replayed under the rules below. Nothing is saved until you press Save campaign.`}
        </p>
        <ul class="cards preview-cards" id="preview-totals">
          <Kpi id="preview-current" label="Earned under the current rules" value={formatMoney(a.total.current, cur)} />
          <Kpi id="preview-new" label="Would earn under the new rules" value={formatMoney(a.total.preview, cur)} />
          <li class={`kpi difference ${tone(a.total.difference)}`} id="preview-difference">
            <span class="label">Difference</span>
            <span class="value" safe>
              {signedMoney(a.total.difference, cur)}
            </span>
            <span class="change" safe>
              {`${changed} of ${a.partners.length} partner${a.partners.length === 1 ? '' : 's'} affected`}
            </span>
          </li>
        </ul>
        <h2>The new rules in words</h2>
        <TermsSummary rules={props.rules} terms={terms} id="preview-terms" />
        <h2>Per partner</h2>
        {a.partners.length === 0 ? (
          <p class="empty" safe>{`No partner earned or would earn a commission in this campaign in the last ${a.days} days.`}</p>
        ) : (
          <div class="table-wrap">
            <table id="preview-partners" class="stack">
              <caption class="vh" safe>
                {`What each partner earned and would earn in the last ${a.days} days, in ${cur}`}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Partner</th>
                  <NumHead label="Earned now" />
                  <NumHead label="Would earn" />
                  <NumHead label="Difference" />
                </tr>
              </thead>
              <tbody>
                {a.partners.map((p) => (
                  <tr data-id={p.partnerId}>
                    <td class="lead fill">
                      <Trunc text={props.names.get(p.partnerId) ?? p.partnerId} href={`/admin/partners/${encodeURIComponent(p.partnerId)}`} />
                    </td>
                    <td class="num" data-label="Earned now" data-stat="current" safe>
                      {formatMoney(p.current, cur)}
                    </td>
                    <td class="num" data-label="Would earn" data-stat="preview" safe>
                      {formatMoney(p.preview, cur)}
                    </td>
                    <td class={`num money diff ${tone(p.difference)}`} data-label="Difference" data-stat="difference" safe>
                      {signedMoney(p.difference, cur)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p class="hint">"Earned now" counts the commissions those events accrued, reversed ones included; group rules and commission snapshots still win over the campaign's rules, as at accrual.</p>
        <form method="post" action={props.action} id="preview-form">
          <CsrfInput token={props.page.csrf} />
          {Object.entries(props.form)
            .filter(([name]) => !NOT_CARRIED.has(name))
            .map(([name, value]) => (
              <input type="hidden" name={name} value={value} />
            ))}
          <div class="actions confirm-actions">
            <button type="submit" name="_edit" value="1" class="secondary">
              Back to editing
            </button>
            <button type="submit">Save campaign</button>
          </div>
        </form>
      </div>
    </AdminLayout>
  );
}
