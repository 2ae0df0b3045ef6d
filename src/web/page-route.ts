// The route pattern a page request matched (`/admin/payouts/:id/mark-paid`), noted by webRoutes
// before any handler runs: the role table (modules/auth/roles.ts) is keyed by patterns, not paths.
const routes = new WeakMap<Request, string>();

export function notePageRoute(request: Request, route: string): void {
  routes.set(request, route);
}

/** The pattern noted for `request`; the concrete path when none was (a page outside webRoutes). */
export function pageRouteOf(request: Request): string {
  return routes.get(request) ?? new URL(request.url).pathname;
}
