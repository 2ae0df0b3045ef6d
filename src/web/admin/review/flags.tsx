// The partner page's section on fraud flags: flagged commissions per month and flag, with revoke
// prefilled with the reason.
import type { PartnerFlagMonth } from '../../../modules/fraud/review';
import type { Flag } from '../../../modules/fraud/signals';
import { href } from '../../ui';
import { FLAG_LABELS, plural, REVIEW } from './labels';

/** The partner page's section: flags per month, with revoke prefilled with the reason. */
export function PartnerFlags(props: { partnerId: string; revoked: boolean; /** Whether the signed-in role may revoke: the button shows only then. */ mayRevoke: boolean; history: { months: PartnerFlagMonth[]; waiting: number; flagged: number } }) {
  const { history } = props;
  if (history.flagged === 0) return <></>;
  const months = [...new Set(history.months.map((m) => m.month))];
  const flags = [...new Set(history.months.map((m) => m.flag))];
  const cell = (month: string, flag: Flag) => history.months.find((m) => m.month === month && m.flag === flag)?.commissions ?? 0;
  const reason = `Fraud signals on ${plural(history.flagged, 'commission')}: ${flags.map((f) => FLAG_LABELS[f].label.toLowerCase()).join(', ')}`;
  return (
    <section aria-labelledby="flags-title" id="partner-flags">
      <div class="section-head">
        <h2 id="flags-title">Fraud flags</h2>
        {history.waiting > 0 && (
          <a href={REVIEW} safe>
            {`${plural(history.waiting, 'commission')} waiting for review`}
          </a>
        )}
      </div>
      <div class="table-wrap">
        <table class="flag-history">
          <caption class="vh">Flagged commissions per month</caption>
          <thead>
            <tr>
              <th scope="col">Month</th>
              {flags.map((f) => (
                <th scope="col" class="num" safe>
                  {FLAG_LABELS[f].label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {months.map((m) => (
              <tr>
                <th scope="row" safe>
                  {m}
                </th>
                {flags.map((f) => (
                  <td class="num" safe>
                    {String(cell(m, f))}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!props.revoked && props.mayRevoke && (
        <p>
          <a class="button danger" id="revoke-for-flags" href={href(`/admin/partners/${encodeURIComponent(props.partnerId)}/revoke`, { reason })}>
            Revoke for these flags…
          </a>
        </p>
      )}
    </section>
  );
}
