// Who on the team may do what: the one table of role rules, for the API and the admin pages alike.
// A route's role rule is derived from what it already declares (its scope), so a route added later
// is covered without an edit here; only where the roles' descriptions differ from the scopes is a
// route named (EXCEPTIONS). The admin key and scoped keys have no role: their scope decides.
//
//   owner    everything, and the team
//   admin    everything but the team
//   finance  reads everything; approves and reverses commissions, runs, marks and settles payouts,
//            exports tax data
//   support  reads everything; partners, applications, codes, links and the review queue; no money
//   viewer   reads only

export const ROLES = ['owner', 'admin', 'finance', 'support', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  finance: 'Finance',
  support: 'Support',
  viewer: 'Viewer',
};

const EVERYONE: readonly Role[] = ROLES;
const ADMINS: readonly Role[] = ['owner', 'admin'];
const MONEY: readonly Role[] = ['owner', 'admin', 'finance'];
const SUPPORT: readonly Role[] = ['owner', 'admin', 'support'];
const OWNERS: readonly Role[] = ['owner'];
/** The review queue: support reviews the flagged commissions, finance decides money anyway. */
const REVIEW: readonly Role[] = ['owner', 'admin', 'finance', 'support'];

/**
 * The roles a scope (or `admin`, a rule no scoped key meets) lets in. A `<noun>:read` scope not
 * named here lets everyone in; any other scope not named here, only owners and admins.
 */
const SCOPE_ROLES: Record<string, readonly Role[]> = {
  admin: ADMINS,
  'partners:write': SUPPORT,
  'links:write': SUPPORT,
  'commissions:write': MONEY,
  'payouts:write': MONEY,
  'campaigns:write': ADMINS,
  'events:write': ADMINS,
  'webhooks:write': ADMINS,
  // reads that are not for everyone
  'audit:read': ADMINS,
  'tax:read': MONEY,
  team: OWNERS,
};

/**
 * Routes whose roles differ from their scope's, by `METHOD /path` (API routes without the /v1
 * prefix; pages as `METHOD /admin/...`, their section's scope otherwise, see PAGE_SECTIONS).
 */
const EXCEPTIONS: Record<string, readonly Role[]> = {
  // the team: the admin key or an owner
  'GET /team': OWNERS,
  'POST /team': OWNERS,
  'PATCH /team/:id': OWNERS,
  'DELETE /team/:id': OWNERS,
  // codes are campaign material, but support hands them out
  'POST /codes': SUPPORT,
  'PATCH /codes/:id': SUPPORT,
  // re-sending a partner's invite is support's work
  'POST /partners/:id/invite': SUPPORT,
  // where a partner's money goes is a money matter
  'PUT /partners/:id/payout-method': MONEY,
  // minting embedded pages belongs to the operator's integration
  'POST /embed-tokens': ADMINS,
  'POST /admin/review/approve': REVIEW,
  'POST /admin/review/reverse': REVIEW,
  'POST /admin/review/:id/approve': REVIEW,
  'POST /admin/review/:id/reverse': REVIEW,
  'GET /admin/review/confirm': REVIEW,
  // a payout's page and the commission that shows beside it are reads; the confirm pages are not
  'GET /admin/emails/:name/preview': EVERYONE,
  'GET /admin/overview/latest-event': EVERYONE,
  'GET /admin/webhooks/:id/deliveries/:deliveryId': EVERYONE,
  'POST /admin/sign-out': EVERYONE,
  // your own sessions: every signed-in member sees and ends their own
  'GET /admin/sessions': EVERYONE,
  'POST /admin/sessions/:id/end': EVERYONE,
  'POST /admin/sessions/others/end': EVERYONE,
};

/**
 * The admin pages by section (`/admin/<section>`): the scopes their reads and their changes stand
 * for. The overview is the empty section. A section missing here has no role rule: only owners
 * and admins may open it, and the security matrix fails until it is added.
 */
const PAGE_SECTIONS: Record<string, { read: string; write: string }> = {
  '': { read: 'overview:read', write: 'admin' },
  overview: { read: 'overview:read', write: 'admin' },
  onboarding: { read: 'admin', write: 'admin' },
  partners: { read: 'partners:read', write: 'partners:write' },
  applications: { read: 'partners:read', write: 'partners:write' },
  groups: { read: 'campaigns:read', write: 'campaigns:write' },
  commissions: { read: 'commissions:read', write: 'commissions:write' },
  review: { read: 'commissions:read', write: 'commissions:write' },
  payouts: { read: 'payouts:read', write: 'payouts:write' },
  events: { read: 'events:read', write: 'events:write' },
  campaigns: { read: 'campaigns:read', write: 'campaigns:write' },
  codes: { read: 'campaigns:read', write: 'codes:write' },
  resources: { read: 'campaigns:read', write: 'campaigns:write' },
  webhooks: { read: 'webhooks:read', write: 'webhooks:write' },
  emails: { read: 'emails:read', write: 'admin' },
  settings: { read: 'settings:read', write: 'admin' },
  'api-keys': { read: 'admin', write: 'admin' },
  team: { read: 'team', write: 'team' },
  sessions: { read: 'sessions:read', write: 'admin' },
  // traffic breakdowns are reads of partners' clicks; moving a program in is the owners' and admins'
  traffic: { read: 'partners:read', write: 'admin' },
  imports: { read: 'admin', write: 'admin' },
  // who changed what: owners and admins (the audit:read scope); the page changes nothing
  audit: { read: 'audit:read', write: 'admin' },
  // the 1099 page and its CSV (full TINs): finance and up, as GET /v1/tax/1099-nec.csv
  tax: { read: 'tax:read', write: 'admin' },
};

/** `codes:write` is not a key scope: codes are written under campaigns:write, support included. */
const PAGE_SCOPE_ROLES: Record<string, readonly Role[]> = { 'codes:write': SUPPORT };

function rolesOfScope(scope: string): readonly Role[] | undefined {
  const named = PAGE_SCOPE_ROLES[scope] ?? SCOPE_ROLES[scope];
  if (named) return named;
  if (scope.endsWith(':read')) return EVERYONE;
  return undefined;
}

/**
 * The roles an API route lets in: its exception, else its scope's. `route` is the route's path
 * pattern (with or without /v1); `scope` what its auth rule names (a scope or 'admin').
 */
export function apiRoles(method: string, route: string, scope: string): readonly Role[] | undefined {
  const name = `${method} ${route.replace(/^\/v1(?=\/)/, '')}`;
  return EXCEPTIONS[name] ?? rolesOfScope(scope);
}

/**
 * A GET page is a read when it lists a section or shows one thing in it (`/admin/<section>`,
 * `.csv`, `/:id`); any other GET page is the confirmation step of a change (`/:id/revoke`,
 * `/run`, `/bulk`), and needs what the change needs.
 */
function isReadPage(method: string, route: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const rest = route.split('/').slice(3);
  return rest.length === 0 || (rest.length === 1 && rest[0]!.startsWith(':'));
}

/** The roles an admin page (its route pattern, `/admin/...`) lets in; undefined when it has no rule. */
export function pageRoles(method: string, route: string): readonly Role[] | undefined {
  const exception = EXCEPTIONS[`${method} ${route}`];
  if (exception) return exception;
  const segment = route.split('/')[2] ?? '';
  const section = PAGE_SECTIONS[segment.replace(/\.csv$/, '')];
  if (!section) return undefined;
  return rolesOfScope(isReadPage(method, route) ? section.read : section.write);
}

/**
 * Who among the team gets the admins' notification emails, by template: those whose role may act
 * on the news (ADMIN_EMAILS owners always do). A template not named here goes to owners and admins.
 */
const NOTICE_SCOPES: Record<string, string> = {
  partner_signup: 'partners:write',
  payout_run_summary: 'payouts:write',
  webhook_failing: 'webhooks:write',
};

/** The roles that receive the admins' email `template`, and those of any template not named. */
export function noticeRoles(): { byTemplate: Record<string, readonly Role[]>; otherwise: readonly Role[] } {
  const byTemplate = Object.fromEntries(Object.entries(NOTICE_SCOPES).map(([template, scope]) => [template, rolesOfScope(scope) ?? ADMINS]));
  return { byTemplate, otherwise: ADMINS };
}

/** Only owners and admins pass a route that has no role rule (the matrix test names it). */
export function roleAllows(role: Role, allowed: readonly Role[] | undefined): boolean {
  return role === 'owner' || (allowed ?? ADMINS).includes(role);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
