// The audit log's table (the audit page, and each object's History section on the partner,
// commission, payout and campaign pages): when, who, what, which object (linked to its page), and
// the fields that changed, before -> after, as stored (secrets read "[redacted]").
import type { AppContext } from '../../../context';
import { historyOf, type AuditEntry } from '../../../modules/audit/list';
import { actorName, auditNames, nameKey, type AuditNames } from '../../../modules/audit/names';
import { pageRoles, roleAllows } from '../../../modules/auth/roles';
import type { AdminPage } from '../../session';
import { attr, href, Trunc } from '../../ui';

export const AUDIT = '/admin/audit';

/** How many entries an object's page shows; the audit page has the rest. */
export const HISTORY_SHOWN = 10;

const ACTOR_KINDS: Record<AuditEntry['actor']['type'], string> = { admin: 'Team member', key: 'API key', partner: 'Partner', job: 'Job', provider: 'Provider' };
export const actorKind = (type: AuditEntry['actor']['type']) => ACTOR_KINDS[type];

/** The admin page of an object, when it has one. */
export function targetHref(type: string, id: string): string | undefined {
  const one = (list: string) => `${list}/${encodeURIComponent(id)}`;
  const pages: Record<string, string> = {
    partner: one('/admin/partners'),
    campaign: one('/admin/campaigns'),
    payout: one('/admin/payouts'),
    commission: one('/admin/commissions'),
    webhook_endpoint: one('/admin/webhooks'),
    group: '/admin/groups',
    settings: '/admin/settings',
    api_key: '/admin/api-keys',
    resource: '/admin/resources',
  };
  return pages[type];
}

/** `partner_group` -> "partner group". */
export const words = (name: string) => name.replace(/_/g, ' ');

/** One value of a change as text: empty for none, strings as they are, anything else as JSON. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return '–';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** "2026-11-27 10:15:02" in UTC. */
export const second = (iso: string) => iso.slice(0, 19).replace('T', ' ');

function Changes(props: { changes?: Record<string, unknown[]> }) {
  const fields = Object.entries(props.changes ?? {});
  if (fields.length === 0) return <span class="muted">–</span>;
  return (
    <ul class="changes">
      {fields.map(([field, [before, after]]) => (
        <li>
          <code safe>{field}</code> <Trunc text={valueText(before)} /> <span aria-label="became">→</span> <Trunc text={valueText(after)} />
        </li>
      ))}
    </ul>
  );
}

/** A kind of thing and its name on two lines (one line on a phone): "API key / ci", "partner / Ann Archer". */
function Named(props: { kind: string; text: string; title: string; href?: string }) {
  return (
    <span class="named">
      <span class="caption" safe>
        {props.kind}
      </span>{' '}
      {props.href ? (
        <a class="trunc" href={props.href} title={attr(props.title)} safe>
          {props.text}
        </a>
      ) : (
        <span class="trunc" title={attr(props.title)} safe>
          {props.text}
        </span>
      )}
    </span>
  );
}

function Target(props: { entry: AuditEntry; names: AuditNames }) {
  const { type, id } = props.entry.target;
  const name = props.names.get(nameKey(type, id));
  return <Named kind={words(type)} text={name ?? id} title={name ? `${name} (${id})` : id} href={targetHref(type, id)} />;
}

/** The entries as a table, newest first; `oneObject` leaves the object column out (an object's own history). */
export function AuditTable(props: { entries: AuditEntry[]; names: AuditNames; caption: string; oneObject?: boolean; id?: string }) {
  return (
    <div class="table-wrap">
      <table id={props.id ?? 'audit'} class="stack audit">
        <caption class="vh" safe>
          {props.caption}
        </caption>
        <thead>
          <tr>
            <th scope="col">When (UTC)</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            {!props.oneObject && <th scope="col">Object</th>}
            <th scope="col">Changes (before → after)</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((e) => (
            <tr data-id={e.id} data-action={e.action}>
              <td class="lead nowrap">
                <time datetime={e.at} title={attr(`${e.at}${e.requestId ? `, request ${e.requestId}` : ''}${e.ip ? `, from ${e.ip}` : ''}`)} safe>
                  {second(e.at)}
                </time>
              </td>
              <td data-label="Who">
                <Named kind={actorKind(e.actor.type)} text={actorName(e.actor, props.names)} title={`${actorName(e.actor, props.names)} (${e.actor.id})`} />
              </td>
              <td data-label="Action">
                <code safe>{e.action}</code>
              </td>
              {!props.oneObject && (
                <td data-label="Object">
                  <Target entry={e} names={props.names} />
                </td>
              )}
              <td data-label="Changes">
                <Changes changes={e.changes} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export type History = { targetId: string; entries: AuditEntry[]; names: AuditNames; more: boolean };

/** An object's recent history, or null when the member's role may not read the audit log (nothing is read then). */
export async function loadHistory(ctx: AppContext, page: AdminPage, targetId: string): Promise<History | null> {
  if (!roleAllows(page.role, pageRoles('GET', AUDIT))) return null;
  const all = await historyOf(ctx.sql, targetId, HISTORY_SHOWN + 1);
  const entries = all.slice(0, HISTORY_SHOWN);
  return { targetId, entries, names: await auditNames(ctx.sql, entries), more: all.length > HISTORY_SHOWN };
}

/** The History section of an object's page: its last changes, and the audit page filtered to it. */
export function HistorySection(props: { history: History | null; what: string }) {
  const h = props.history;
  if (!h) return '';
  const full = href(AUDIT, { targetId: h.targetId });
  return (
    <section id="history" aria-labelledby="history-title">
      <div class="page-head">
        <h2 id="history-title">History</h2>
        <a href={full} id="history-all">
          {h.more ? 'Full history in the audit log' : 'Open in the audit log'}
        </a>
      </div>
      {h.entries.length === 0 ? (
        <p class="empty" safe>{`No change to this ${props.what} has been recorded yet.`}</p>
      ) : (
        <AuditTable entries={h.entries} names={h.names} caption={`Changes to this ${props.what}, newest first`} oneObject id="history-table" />
      )}
    </section>
  );
}
