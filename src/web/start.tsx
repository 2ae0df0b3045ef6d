// GET /: the start page, so a first visit lands somewhere useful: the admin, the partner portal and
// the API reference. A JSON client (Accept: application/json, no text/html) gets the same links as JSON.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { loadBrand } from '../mail/brand';
import { AuthLayout } from './auth-layout';
import { pageBrand, type PageBrand } from './brand';
import { render } from './render';

/** Where things are, for people and for scripts. */
export const START_LINKS = { admin: '/admin', portal: '/portal', docs: '/docs', openapi: '/openapi.json' } as const;

function StartPage(props: { brand: PageBrand }) {
  return (
    <AuthLayout title="Start" brand={props.brand}>
      <h1>Welcome</h1>
      <p>Where would you like to go?</p>
      <ul class="start-links">
        <li>
          <a href={START_LINKS.portal}>Partner portal</a>
          <span class="hint">Partners: your links, earnings and payouts. Sign in or apply to join.</span>
        </li>
        <li>
          <a href={START_LINKS.admin}>Admin dashboard</a>
          <span class="hint">Program staff: partners, campaigns, commissions and payouts.</span>
        </li>
        <li>
          <a href={START_LINKS.docs}>API reference</a>
          <span class="hint">
            Developers: every endpoint, also as an <a href={START_LINKS.openapi}>OpenAPI document</a>.
          </span>
        </li>
      </ul>
    </AuthLayout>
  );
}

/** Whether the caller asked for JSON rather than a page. */
function wantsJson(request: Request): boolean {
  const accept = request.headers.get('accept') ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

export function startRoutes(ctx: AppContext) {
  return new Elysia({ detail: { hide: true } }).get('/', async ({ request }) => {
    const brand = pageBrand(await loadBrand(ctx.sql, ctx.config.baseUrl));
    if (wantsJson(request)) return Response.json({ name: brand.name, links: START_LINKS }, { headers: { 'x-content-type-options': 'nosniff' } });
    return render(<StartPage brand={brand} />);
  });
}
