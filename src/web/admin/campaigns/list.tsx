// The campaigns list: each with its last 30 days, and the new campaign form.
import type { AppContext } from '../../../context';
import { paginate, readPage } from '../../../lib/http';
import { listCampaigns, type Campaign } from '../../../modules/campaigns/service';
import { campaignNumbers, type CampaignNumbers, type Numbers } from '../../../modules/reports/campaigns';
import type { FormErrors } from '../../forms';
import { OlderLink } from '../../layout';
import { parseRange, rangeStart } from '../../range';
import type { AdminPage } from '../../session';
import { AdminLayout, can, Done } from '../kit';
import { Badge, EmptyState, formatMoney, href, Trunc, NumHead } from '../../ui';
import { campaignBadge, campaignPath, count, DONE, eventTypes, LIST, type CampaignValues } from './shared';
import { CampaignForm } from './form';

export async function listView(ctx: AppContext, page: AdminPage, input: { cursor?: string; values?: CampaignValues; errors?: FormErrors; done?: string }) {
  const p = readPage({ cursor: input.cursor }, 'campaign');
  const { items, nextCursor } = paginate(await listCampaigns(ctx.sql, p), p.limit);
  const last30 = parseRange({ range: '30d' });
  const [numbers, types] = await Promise.all([
    campaignNumbers(await ctx.reads.sql(), { campaignIds: items.map((c) => c.id), start: rangeStart(last30), end: last30.end }),
    eventTypes(ctx),
  ]);
  return (
    <CampaignsPage
      page={page}
      campaigns={items}
      numbers={numbers}
      nextCursor={nextCursor}
      values={input.values}
      errors={input.errors}
      done={input.done}
      eventTypes={types}
      holdbackDefault={ctx.config.holdbackDays}
    />
  ) as string;
}

function CampaignsPage(props: {
  page: AdminPage;
  campaigns: Campaign[];
  numbers: Map<string, CampaignNumbers>;
  nextCursor: string | null;
  values?: CampaignValues;
  errors?: FormErrors;
  done?: string;
  eventTypes: string[];
  holdbackDefault: number;
}) {
  const values = props.values ?? { name: '', destinationUrl: '', currency: 'USD', holdbackDays: '', recruiterPercent: '', previewDays: '', rows: [] };
  // a role that may not change campaigns reads them, without the form to make one
  const write = can(props.page, 'POST', LIST);
  return (
    <AdminLayout page={props.page} title="Campaigns" current={LIST} scripts={['/assets/htmx.js', '/assets/rules.js']}>
      <h1>Campaigns</h1>
      <Done texts={DONE} done={props.done} />
      {props.campaigns.length === 0 ? (
        <EmptyState
          title="No campaigns yet"
          text="A campaign says where share links land and what partners earn. Create one to invite partners to it."
          action={write ? { href: '#new', label: 'Create a campaign' } : undefined}
        />
      ) : (
        <div class="table-wrap">
          <table id="campaigns" class="stack">
            <caption class="vh">Campaigns, newest first, with their last 30 days</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <NumHead label="Partners" />
                <NumHead label="Clicks" />
                <NumHead label="Conversions" />
                <NumHead label="Revenue" />
                <NumHead label="Commissions" />
              </tr>
            </thead>
            <tbody>
              {props.campaigns.map((c) => {
                const n = props.numbers.get(c.id);
                return (
                  <tr data-id={c.id}>
                    <td class="lead fill">
                      <Trunc text={c.name} href={campaignPath(c.id)} wide />
                    </td>
                    <td class="badge-cell" data-label="Status">
                      <Badge {...campaignBadge(c)} />
                    </td>
                    <td class="num" data-label="Partners" data-stat="partners" safe>
                      {count(n?.partners ?? 0)}
                    </td>
                    <td class="num" data-label="Clicks (30 d)" data-stat="clicks" safe>
                      {count(n?.clicks ?? 0)}
                    </td>
                    <td class="num" data-label="Conversions (30 d)" data-stat="conversions" safe>
                      {count(n?.conversions ?? 0)}
                    </td>
                    <td class="num" data-label="Revenue (30 d)" data-stat="revenue" safe>
                      {formatMoney(n?.revenue ?? 0n, c.currency)}
                    </td>
                    <td class="num money" data-label="Commissions (30 d)" data-stat="commissions" safe>
                      {formatMoney(n?.commissions ?? 0n, c.currency)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {props.campaigns.length > 0 && <p class="hint">Numbers of the last 30 days, money in each campaign's currency.</p>}
      <OlderLink path={LIST} cursor={props.nextCursor} label="Older campaigns" />
      {write && (
        <>
          <h2 id="new">New campaign</h2>
          <CampaignForm
            page={props.page}
            action={LIST}
            values={values}
            errors={props.errors}
            submit="Create campaign"
            eventTypes={props.eventTypes}
            holdbackDefault={props.holdbackDefault}
          />
        </>
      )}
    </AdminLayout>
  );
}
