// The portal's promotion codes page: the partner's codes with their customers, sales and
// earnings, and a form to create one for a campaign it holds.
import type { CodeStats, PromotionCode } from '../../modules/codes/service';
import { CodeField, CsrfInput, SelectField, type FormErrors } from '../forms';
import { Notice } from '../layout';
import type { PartnerPage } from '../session';
import { Badge, EmptyState, formatMoney, NumHead, Trunc } from '../ui';
import { PortalLayout } from './shell';

export type PortalCode = PromotionCode & { campaignName: string; currency: string; stats: CodeStats };

export function CodesPage(props: {
  page: PartnerPage;
  codes: PortalCode[];
  campaigns: { id: string; name: string }[];
  created?: string | null;
  values?: { code?: string; campaignId?: string };
  errors?: FormErrors;
}) {
  const errors = props.errors ?? {};
  return (
    <PortalLayout page={props.page} title="Promotion codes" current="/portal/codes">
      <h1>Your promotion codes</h1>
      {props.created ? <Notice kind="ok" text={`Code ${props.created} created. Read it out, print it, pin it: customers who use it at checkout are yours.`} /> : ''}
      <p class="caption">
        A customer who uses your code on their first purchase is credited to you, even without clicking a link, and every later purchase of theirs
        earns you commission as your campaign's terms say. Numbers are all time.
      </p>
      {props.codes.length === 0 ? (
        <EmptyState title="No codes yet" text="Create a code below for your audience to type at checkout." />
      ) : (
        <div class="table-wrap">
          <table id="codes-table" class="stack">
            <caption class="vh">Your promotion codes with their customers, sales and earnings, all time</caption>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Campaign</th>
                <th scope="col">Status</th>
                <NumHead label="Customers" title="Customers whose first purchase used the code" />
                <NumHead label="Sales" title="Sales credited to you through the code (a customer's renewals included)" />
                <NumHead label="Earnings" title="Your commissions through the code; reversed ones left out" />
              </tr>
            </thead>
            <tbody>
              {props.codes.map((c) => (
                <tr data-code={c.code}>
                  <td class="lead">
                    <code class="promo-code" safe>
                      {c.code}
                    </code>
                  </td>
                  <td data-label="Campaign">
                    <Trunc text={c.campaignName} />
                  </td>
                  <td class="badge-cell" data-label="Status">
                    {c.archivedAt ? (
                      <Badge tone="grey" label="Archived" title="Archived by the program: new customers using it are not credited to you" />
                    ) : (
                      <Badge tone="green" label="Active" title="Active: customers who use it are credited to you" />
                    )}
                  </td>
                  <td class="num" data-label="Customers" data-stat="customers" safe>
                    {c.stats.customers.toLocaleString('en-US')}
                  </td>
                  <td class="num" data-label="Sales" data-stat="sales" safe>
                    {c.stats.conversions.toLocaleString('en-US')}
                  </td>
                  <td class="num money" data-label="Earnings" data-stat="earnings" safe>
                    {c.stats.earnings.length === 0 ? formatMoney(0n, c.currency) : c.stats.earnings.map((s) => formatMoney(s.amount, s.currency)).join(', ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2 id="code-form-title">Create a code</h2>
      {props.campaigns.length === 0 ? (
        <p class="empty">You hold no active campaign yet, so you cannot create codes.</p>
      ) : (
        <form method="post" action="/portal/codes" class="code-form" aria-labelledby="code-form-title" novalidate>
          {errors._form ? <Notice kind="error" text={errors._form} /> : ''}
          <CsrfInput token={props.page.csrf} />
          <div class="code-form-row">
            <CodeField value={props.values?.code} error={errors.code} />
            <SelectField
              name="campaignId"
              label="Campaign"
              options={props.campaigns.map((c) => ({ value: c.id, label: c.name }))}
              value={props.values?.campaignId}
              error={errors.campaignId}
            />
            <div class="actions">
              <button type="submit">Create code</button>
            </div>
          </div>
        </form>
      )}
    </PortalLayout>
  );
}
