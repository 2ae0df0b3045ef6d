// The overview page: the setup checklist until the program is set up, then the dashboard (or the
// empty state of a program where nothing happened yet).
import { CsrfInput } from '../../forms';
import { Notice } from '../../layout';
import { RangePicker } from '../../range';
import type { AdminPage } from '../../session';
import { EmptyState } from '../../ui';
import type { LatestEvent } from '../../../modules/reports/overview';
import { AdminLayout, Done } from '../kit';
import { Dashboard, Todo } from './dashboard';
import { PATH, type Data } from './data';
import { LatestEventLine, SetupChecklist, setupSteps } from './setup';

/** The whole page as HTML. */
export const overviewView = (page: AdminPage, data: Data, baseUrl: string, extra: { createdKey?: string; done?: string } = {}) =>
  (<OverviewPage page={page} data={data} baseUrl={baseUrl} {...extra} />) as string;

/** The latest-event line alone, for htmx to swap in. */
export const latestEventView = (event: LatestEvent | null) => (<LatestEventLine event={event} />) as string;

function OverviewPage(props: { page: AdminPage; data: Data; baseUrl: string; createdKey?: string; done?: string }) {
  const d = props.data;
  const steps = setupSteps(d, props.createdKey);
  const doneCount = steps.filter((s) => s.done).length;
  const showSetup = d.setup.dismissedAt === null && doneCount < steps.length;
  const next = steps.find((s) => !s.done);
  return (
    <AdminLayout page={props.page} title="Overview" current={PATH} scripts={['/assets/copy.js', '/assets/htmx.js']}>
      <div class="page-head overview-head">
        <h1>Overview</h1>
        {d.active ? <RangePicker action={PATH} range={d.range} /> : ''}
      </div>
      <Done texts={{ dismissed: 'Setup checklist hidden. "Show the setup checklist" at the bottom of this page brings it back.' }} done={props.done} />
      {props.createdKey ? <Notice kind="ok" text="Publishable key created. It is filled into the snippet below and shown only now: copy the snippet to your site." /> : ''}
      {showSetup || props.createdKey ? <SetupChecklist steps={steps} doneCount={doneCount} csrf={props.page.csrf} baseUrl={props.baseUrl} data={d} createdKey={props.createdKey} /> : ''}
      {d.active ? (
        <Dashboard data={d} />
      ) : (
        <>
          <EmptyState
            title="No activity yet"
            text="Clicks, sales and commissions show here once a partner's link is visited."
            action={next?.action ?? { href: '/admin/partners', label: 'Invite a partner' }}
          />
          {Object.values(d.todo).some((n) => n > 0) ? <Todo todo={d.todo} /> : ''}
        </>
      )}
      {d.setup.dismissedAt !== null && doneCount < steps.length ? (
        <form method="post" action="/admin/onboarding/show" class="setup-again">
          <CsrfInput token={props.page.csrf} />
          <button type="submit" class="link">
            Show the setup checklist
          </button>
          <span class="caption" safe>{`${doneCount} of ${steps.length} steps done`}</span>
        </form>
      ) : (
        ''
      )}
    </AdminLayout>
  );
}
