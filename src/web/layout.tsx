// The page shell every web page shares: head, one stylesheet, the navigation (a side nav from
// 1024 px, a top bar with a <details> menu below that: no script), and the page column.
import type { Children } from '@kitajs/html';
import type { PageBrand } from './brand';
import { attr } from './ui';

/** A section in the navigation; `badge` is a count waiting there (its label read out in words). */
export type NavItem = { href: string; label: string; badge?: { count: number; label: string } };

export function Layout(props: {
  title: string;
  /** Who is signed in, shown in the header; absent on signed-out pages. */
  who?: string;
  nav?: NavItem[];
  current?: string;
  /** The sign-out form (posts with a CSRF token); absent on signed-out pages. */
  signOut?: { action: string; csrf: string };
  scripts?: string[];
  /** The program's branding (partner-facing pages): name and logo in the header, colour as the accent. */
  brand?: PageBrand;
  children?: Children;
}): JSX.Element {
  const brand = props.brand;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title safe>{`${props.title} · ${brand?.name ?? 'Partnerd'}`}</title>
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/style.css" />
        {!!brand?.color && <link rel="stylesheet" href={`/brand.css?c=${brand.color.slice(1)}`} />}
        {/* htmx (on pages that load it): no inline indicator styles, no eval, no script tags in swaps */}
        <meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"selfRequestsOnly":true}' />
        <script src="/assets/ui.js" defer></script>
        {(props.scripts ?? []).map((src) => (
          <script src={src} defer></script>
        ))}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <div class={props.nav ? 'shell with-nav' : 'shell'}>
          <header class="bar">
            {brand ? (
              <span class="brand">
                {!!brand.logoUrl && <img class="brand-logo" src={attr(brand.logoUrl)} alt="" />}
                <span safe>{brand.name}</span>
              </span>
            ) : (
              <span class="brand">Partnerd</span>
            )}
            {!!props.nav && (
              <details class="menu">
                <summary>Menu</summary>
                <div class="menu-panel">
                  <nav aria-label="Main" class="nav">
                    <ul>
                      {props.nav.map((item) => (
                        <li>
                          <a href={item.href} aria-current={item.href === props.current ? 'page' : undefined}>
                            <span safe>{item.label}</span>
                            {!!item.badge && (
                              <span class="nav-badge" title={attr(item.badge.label)} safe>
                                {String(item.badge.count)}
                              </span>
                            )}
                          </a>
                        </li>
                      ))}
                    </ul>
                  </nav>
                  {(props.who !== undefined || !!props.signOut) && (
                    <div class="account">
                      {props.who !== undefined && (
                        <span class="who" title={attr(props.who)} safe>
                          {props.who}
                        </span>
                      )}
                      {!!props.signOut && (
                        <form method="post" action={props.signOut.action} class="inline">
                          <input type="hidden" name="_csrf" value={props.signOut.csrf} />
                          <button type="submit" class="link">
                            Sign out
                          </button>
                        </form>
                      )}
                    </div>
                  )}
                </div>
              </details>
            )}
          </header>
          <main id="main">
            <div class="page">{props.children}</div>
          </main>
        </div>
      </body>
    </html>
  );
}

/** A notice above a page's content (after a redirect, or a refused form). */
export function Notice(props: { kind: 'ok' | 'error'; text: string }): JSX.Element {
  return (
    <p class={`notice ${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'} safe>
      {props.text}
    </p>
  );
}

/** The date part ("2026-11-21") of an ISO timestamp; empty for none. */
export const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '');

/** The link to a list's next page, keeping its filters; nothing on the last page. */
export function OlderLink(props: { path: string; cursor: string | null; label: string; query?: Record<string, string | undefined> }): JSX.Element {
  if (!props.cursor) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(props.query ?? {})) if (value) params.set(key, value);
  params.set('cursor', props.cursor);
  return (
    <p>
      <a href={`${props.path}?${params}`} safe>
        {props.label}
      </a>
    </p>
  );
}
