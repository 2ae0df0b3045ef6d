// Tables several admin pages share: commissions, payouts, links. One line per row (badges, money and
// dates never wrap, long names end in an ellipsis); row actions sit in a "⋯" menu after the table;
// on phones each row is a card whose labels come from data-label (style.css).
import type { Children } from '@kitajs/html';
import type { Commission } from '../../modules/commissions/service';
import type { Link } from '../../modules/links/service';
import type { PayoutView } from '../../modules/payouts/service';
import { attr, Badge, commissionBadge, MenuButton, MoneyCell, menuId, payoutBadge, RowMenu, Trunc } from '../ui';
import { day } from './kit';

/** Ids to names for the tables' partner and campaign columns. */
export type Names = { partners?: Map<string, string>; campaigns?: Map<string, string> };

const partnerHref = (id: string) => `/admin/partners/${encodeURIComponent(id)}`;

/** A row's menu: its title and entries; null when the row has no action. */
export type RowActions = { title: string; items: Children } | null;

export function CommissionsTable(props: {
  commissions: Commission[];
  names: Names;
  caption: string;
  /** Without the partner column (on the partner's own page); the event leads the row then. */
  onePartner?: boolean;
  /** A leading cell per row (the bulk-approve checkbox). */
  select?: (c: Commission) => Children;
  /** The row's "⋯" menu. */
  actions?: (c: Commission) => RowActions;
}) {
  const menus = props.commissions.map((c) => ({ c, menu: props.actions?.(c) ?? null }));
  return (
    <>
      <div class="table-wrap">
        <table id="commissions" class="stack">
          <caption class="vh" safe>
            {props.caption}
          </caption>
          <thead>
            <tr>
              {!!props.select && (
                <th scope="col" class="pick">
                  <span class="vh">Select</span>
                </th>
              )}
              <th scope="col">{props.onePartner ? 'Event' : 'Partner'}</th>
              <th scope="col">Date</th>
              <th scope="col">Campaign</th>
              {!props.onePartner && <th scope="col">Event</th>}
              <th scope="col" class="num">
                Amount
              </th>
              <th scope="col">Status</th>
              {!!props.actions && (
                <th scope="col" class="act">
                  <span class="vh">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {menus.map(({ c, menu }) => {
              const partner = props.names.partners?.get(c.partnerId) ?? c.partnerId;
              return (
                <tr data-id={c.id}>
                  {!!props.select && (
                    <td class="pick" data-label="Select">
                      {props.select(c)}
                    </td>
                  )}
                  <td class="lead">
                    {props.onePartner ? <Trunc text={c.eventType} /> : <Trunc text={partner} href={partnerHref(c.partnerId)} />}
                  </td>
                  <td data-label="Date" safe>
                    {day(c.createdAt)}
                  </td>
                  <td data-label="Campaign">
                    <Trunc text={props.names.campaigns?.get(c.campaignId) ?? c.campaignId} />
                  </td>
                  {!props.onePartner && (
                    <td data-label="Event">
                      <Trunc text={c.eventType} />
                    </td>
                  )}
                  <MoneyCell amount={c.amount} currency={c.currency} />
                  <td class="badge-cell" data-label="Status">
                    <Badge {...commissionBadge(c)} />
                    {!!c.reason && <span class="note trunc" title={attr(c.reason)} safe>{c.reason}</span>}
                  </td>
                  {!!props.actions && (menu ? <MenuButton menu={menuId('cm', c.id)} label={`Actions for ${partner}'s commission`} /> : <td class="act"></td>)}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {menus.map(({ c, menu }) =>
        menu ? (
          <RowMenu id={menuId('cm', c.id)} title={menu.title}>
            {menu.items}
          </RowMenu>
        ) : (
          ''
        ),
      )}
    </>
  );
}

export function PayoutsTable(props: { payouts: PayoutView[]; names: Names; caption: string; onePartner?: boolean; actions?: (p: PayoutView) => RowActions }) {
  const menus = props.payouts.map((p) => ({ p, menu: props.actions?.(p) ?? null }));
  return (
    <>
      <div class="table-wrap">
        <table id="payouts" class="stack">
          <caption class="vh" safe>
            {props.caption}
          </caption>
          <thead>
            <tr>
              {!props.onePartner && <th scope="col">Partner</th>}
              <th scope="col">Date</th>
              <th scope="col" class="num">
                Amount
              </th>
              <th scope="col" class="num">
                Commissions
              </th>
              <th scope="col">Status</th>
              <th scope="col">Paid</th>
              <th scope="col">Reference</th>
              {!!props.actions && (
                <th scope="col" class="act">
                  <span class="vh">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {menus.map(({ p, menu }) => {
              const partner = props.names.partners?.get(p.partnerId) ?? p.partnerId;
              return (
                <tr data-id={p.id}>
                  {!props.onePartner && (
                    <td class="lead">
                      <Trunc text={partner} href={partnerHref(p.partnerId)} />
                    </td>
                  )}
                  {props.onePartner ? (
                    <td class="lead" safe>
                      {day(p.createdAt)}
                    </td>
                  ) : (
                    <td data-label="Date" safe>
                      {day(p.createdAt)}
                    </td>
                  )}
                  <MoneyCell amount={p.amount} currency={p.currency} />
                  <td class="num" data-label="Commissions">
                    {p.commissionCount}
                  </td>
                  <td class="badge-cell" data-label="Status">
                    <Badge {...payoutBadge(p)} />
                    {!!p.failureReason && <span class="note trunc" title={attr(p.failureReason)} safe>{p.failureReason}</span>}
                  </td>
                  <td data-label="Paid" safe>
                    {day(p.paidAt)}
                  </td>
                  <td data-label="Reference">
                    <Trunc text={p.providerReference ?? ''} />
                  </td>
                  {!!props.actions && (menu ? <MenuButton menu={menuId('po', p.id)} label={`Actions for ${partner}'s payout`} /> : <td class="act"></td>)}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {menus.map(({ p, menu }) =>
        menu ? (
          <RowMenu id={menuId('po', p.id)} title={menu.title}>
            {menu.items}
          </RowMenu>
        ) : (
          ''
        ),
      )}
    </>
  );
}

export function LinksTable(props: { links: Link[]; names: Names; caption: string }) {
  return (
    <div class="table-wrap">
      <table id="links" class="stack">
        <caption class="vh" safe>
          {props.caption}
        </caption>
        <thead>
          <tr>
            <th scope="col">Link</th>
            <th scope="col">Campaign</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {props.links.map((l) => (
            <tr data-slug={l.slug}>
              <td class="lead fill">
                <Trunc text={l.url} wide />
              </td>
              <td data-label="Campaign">
                <Trunc text={props.names.campaigns?.get(l.campaignId) ?? l.campaignId} />
              </td>
              <td data-label="Created" safe>
                {day(l.createdAt)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
