// The audit log page (GET /admin/audit): every recorded change, newest first, filtered by who, what,
// which object and a date range (a GET form: works without script), paged by keyset ("Older
// entries"), and downloaded as CSV with the same filters.
import type { AuditEntry } from '../../../modules/audit/list';
import type { AuditNames } from '../../../modules/audit/names';
import { ACTOR_TYPES } from '../../../modules/audit/model';
import { Field, SelectField, type FormErrors } from '../../forms';
import { Notice, OlderLink } from '../../layout';
import type { AdminPage } from '../../session';
import { EmptyState, href } from '../../ui';
import { AdminLayout } from '../kit';
import { actorKind, AUDIT, AuditTable, words } from '../kit/audit';
import { TARGET_TYPES, type View } from './filter';

export type AuditPageProps = {
  page: AdminPage;
  entries: AuditEntry[];
  names: AuditNames;
  /** Whether the log holds anything at all ("nothing yet" against "no match"). */
  any: boolean;
  actions: string[];
  view: View;
  errors: FormErrors;
  cursor?: string;
  nextCursor: string | null;
};

export const auditView = (props: AuditPageProps) => (<AuditPage {...props} />) as string;

/** "Any", then per noun "Every partner change" (`partner.`) and its actions. */
function actionOptions(actions: string[], current: string | undefined) {
  const all = [...new Set([...actions, ...(current && !current.endsWith('.') ? [current] : [])])].sort();
  const nouns = [...new Set([...all.map((a) => a.split('.')[0]!), ...(current?.endsWith('.') ? [current.slice(0, -1)] : [])])].sort();
  return [
    { value: '', label: 'Any' },
    ...nouns.flatMap((noun) => [{ value: `${noun}.`, label: `Every ${words(noun)} change` }, ...all.filter((a) => a.startsWith(`${noun}.`)).map((a) => ({ value: a, label: a }))]),
  ];
}

function Filters(props: AuditPageProps) {
  const v = props.view;
  const e = props.errors;
  const types = [...new Set([...TARGET_TYPES, ...(v.targetType ? [v.targetType] : [])])];
  return (
    <form method="get" action={AUDIT} class="row audit-filters" aria-label="Filter the audit log" novalidate>
      <Field name="actor" label="Who" value={v.actor} error={e.actor} placeholder="an email or an id" />
      <SelectField
        name="actorType"
        label="Kind of actor"
        value={v.actorType ?? ''}
        error={e.actorType}
        options={[{ value: '', label: 'Any' }, ...ACTOR_TYPES.map((t) => ({ value: t, label: actorKind(t) }))]}
      />
      <SelectField name="action" label="What" value={v.action ?? ''} error={e.action} options={actionOptions(props.actions, v.action)} />
      <SelectField
        name="targetType"
        label="Object"
        value={v.targetType ?? ''}
        error={e.targetType}
        options={[{ value: '', label: 'Any' }, ...types.map((t) => ({ value: t, label: words(t) }))]}
      />
      <Field name="targetId" label="Object id" value={v.targetId} error={e.targetId} placeholder="ptn_…" />
      <Field name="from" label="From" type="date" value={v.from} error={e.from} />
      <Field name="to" label="To" type="date" value={v.to} error={e.to} />
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  );
}

function AuditPage(props: AuditPageProps) {
  const v = props.view;
  const narrowed = Object.values(v).some(Boolean);
  const failed = Object.keys(props.errors).length > 0;
  return (
    <AdminLayout page={props.page} title="Audit log" current={AUDIT}>
      <div class="page-head">
        <h1>Audit log</h1>
        {!failed && (
          <a class="button secondary" id="csv" href={href(`${AUDIT}.csv`, v)} download="audit-log.csv">
            Export CSV
          </a>
        )}
      </div>
      <p class="hint">
        Every change to the program, who made it and when, newest first. Entries cannot be changed or deleted. Secrets and tax ids read
        "[redacted]"; docs/team.md explains each action.
      </p>
      {!!props.errors._form && <Notice kind="error" text={props.errors._form} />}
      <Filters {...props} />
      {failed ? (
        <p class="empty">Correct the filter above to see entries.</p>
      ) : props.entries.length === 0 ? (
        !props.any ? (
          <EmptyState title="Nothing recorded yet" text="Changes made by your team, API keys, jobs and providers appear here as they happen." />
        ) : props.cursor ? (
          <EmptyState title="No older entries" text="This is past the oldest entry that matches." action={{ href: href(AUDIT, v), label: 'Newest entries' }} />
        ) : (
          <EmptyState title="No entry matches" text={narrowed ? 'No change matches who, what, which object and when.' : 'No change yet.'} clear={AUDIT} />
        )
      ) : (
        <>
          <AuditTable entries={props.entries} names={props.names} caption="Changes, newest first" />
          <nav class="pager" aria-label="Pages of the audit log">
            {!!props.cursor && (
              <p>
                <a href={href(AUDIT, v)} id="newest">
                  Newest entries
                </a>
              </p>
            )}
            <OlderLink path={AUDIT} cursor={props.nextCursor} label="Older entries" query={v} />
          </nav>
        </>
      )}
    </AdminLayout>
  );
}
