// What every admin route shares: the admin shell, the page and form guards, and the pages shown
// to signed-out visitors and to partners.
import type { Children } from '@kitajs/html';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { listCampaigns } from '../../modules/campaigns/service';
import { refuseCrossSite } from '../../modules/auth/plugin';
import { pageRoles, roleAllows, ROLE_LABELS, type Role } from '../../modules/auth/roles';
import { pageRouteOf } from '../page-route';
import { refuseBadToken } from '../csrf';
import { formFields } from '../forms';
import { Layout, Notice, type NavItem } from '../layout';
import { RefusedPage } from '../portal/pages';
import { render, seeOther } from '../render';
import { guardAdmin, type AdminPage } from '../session';

export const ADMIN_SIGN_IN = '/admin/sign-in';

/** Every admin section; the shell's navigation. */
export const ADMIN_NAV: NavItem[] = [
  { href: '/admin', label: 'Overview' },
  { href: '/admin/traffic', label: 'Traffic' },
  { href: '/admin/partners', label: 'Partners' },
  { href: '/admin/applications', label: 'Applications' },
  { href: '/admin/groups', label: 'Groups' },
  { href: '/admin/commissions', label: 'Commissions' },
  { href: '/admin/review', label: 'Review' },
  { href: '/admin/payouts', label: 'Payouts' },
  { href: '/admin/tax', label: 'Tax' },
  { href: '/admin/events', label: 'Events' },
  { href: '/admin/campaigns', label: 'Campaigns' },
  { href: '/admin/webhooks', label: 'Webhooks' },
  { href: '/admin/resources', label: 'Resources' },
  { href: '/admin/api-keys', label: 'API keys' },
  { href: '/admin/emails', label: 'Emails' },
  { href: '/admin/settings', label: 'Settings' },
  { href: '/admin/audit', label: 'Audit log' },
  { href: '/admin/imports', label: 'Import' },
];

/** Whether the signed-in member's role may use the page `route` (a pattern) with `method`. */
export function can(page: AdminPage, method: 'GET' | 'POST', route: string): boolean {
  return roleAllows(page.role, pageRoles(method, route));
}

export const roleRefused = (role: Role) => new AppError('forbidden', `Your role (${ROLE_LABELS[role].toLowerCase()}) may not open this page or make this change.`);

/** The navigation with its waiting counts (a small badge beside Applications and Review), without the sections the role may not open. */
function adminNav(page: AdminPage): NavItem[] {
  const badges: Record<string, { n: number; label: string } | undefined> = {
    '/admin/applications': page.waiting && { n: page.waiting.applicationsWaiting, label: 'waiting' },
    '/admin/review': page.waiting && { n: page.waiting.reviewWaiting, label: 'to review' },
  };
  return ADMIN_NAV.filter((item) => can(page, 'GET', item.href)).map((item) => {
    const badge = badges[item.href];
    return badge && badge.n > 0 ? { ...item, badge: { count: badge.n, label: `${badge.n} ${badge.label}` } } : item;
  });
}

export function AdminLayout(props: { page: AdminPage; title: string; current: string; scripts?: string[]; children?: Children }) {
  return (
    <Layout
      title={`${props.title} · Admin`}
      who={props.page.email}
      nav={adminNav(props.page)}
      current={props.current}
      signOut={{ action: '/admin/sign-out', csrf: props.page.csrf }}
      scripts={props.scripts}
    >
      {props.children}
    </Layout>
  );
}

/** A partner's session on an admin page: refused, nothing of the page is shown. */
export function NotAdminPage() {
  return (
    <Layout title="Admins only">
      <div class="narrow">
        <h1>This page is for administrators</h1>
        <Notice kind="error" text="You are signed in as a partner. Partners cannot open admin pages." />
        <p>
          <a href="/portal">Go to your partner dashboard</a>
        </p>
      </div>
    </Layout>
  );
}

export type AdminKit = {
  /** Runs `view` for a signed-in admin; signed out goes to the sign-in page, a partner gets 403. */
  page(request: Request, view: (page: AdminPage) => Response | Promise<Response>): Promise<Response>;
  /** A state-changing admin form: an admin session, same origin, and the session's CSRF token. */
  form(request: Request, body: unknown, back: string, act: (page: AdminPage, form: Record<string, string>) => Promise<Response>): Promise<Response>;
};

export function adminKit(ctx: AppContext): AdminKit {
  async function page(request: Request, view: (page: AdminPage) => Response | Promise<Response>): Promise<Response> {
    const guard = await guardAdmin(ctx, request);
    if (guard.kind === 'signed-out') return seeOther(ADMIN_SIGN_IN);
    if (guard.kind === 'partner') return render(<NotAdminPage />, { status: 403 });
    // the role: answered in the shell's error page (app.ts), nothing of the page runs
    if (!roleAllows(guard.page.role, pageRoles(request.method, pageRouteOf(request)))) throw roleRefused(guard.page.role);
    return view(guard.page);
  }
  function form(request: Request, body: unknown, back: string, act: (page: AdminPage, form: Record<string, string>) => Promise<Response>) {
    return page(request, (admin) => {
      const fields = formFields(body);
      try {
        refuseCrossSite(ctx, request);
        refuseBadToken(admin.sessionToken, fields);
      } catch (error) {
        return refused(error, back);
      }
      return act(admin, fields);
    });
  }
  return { page, form };
}

export function refused(error: unknown, back: string): Response | Promise<Response> {
  if (!(error instanceof AppError)) throw error;
  return render(<RefusedPage message={error.message} back={back} />, { status: error.status });
}

/** Who did it, as commission and payout transitions record it (the API's actorOf does the same). */
export const adminActor = (page: AdminPage) => `admin:${page.email}`;

export { day } from '../layout';

/** Campaign id -> name, for the tables' campaign column (a program has a handful of campaigns). */
export async function campaignNames(ctx: AppContext): Promise<Map<string, string>> {
  const rows = await listCampaigns(ctx.sql, { limit: 500 });
  return new Map(rows.map((c) => [c.id, c.name]));
}

/** A page for an id that names nothing. */
export function NotFoundPage(props: { page: AdminPage; what: string; back: string }) {
  return (
    <AdminLayout page={props.page} title="Not found" current={props.back}>
      <h1 safe>{`No such ${props.what}`}</h1>
      <p>
        <a href={props.back}>Back</a>
      </p>
    </AdminLayout>
  );
}

/** The confirmation notice after a redirect: fixed texts chosen by key, nothing echoed from the URL. */
export function Done(props: { texts: Record<string, string>; done?: string }) {
  const text = props.done ? props.texts[props.done] : undefined;
  return text ? <Notice kind="ok" text={text} /> : '';
}
