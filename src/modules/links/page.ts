// A minimal HTML page shell for what a share link answers a visitor when it cannot redirect (404, 503).

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}h1{font-size:1.5rem}';

/**
 * The page's Content-Security-Policy, as strict as the other pages': nothing runs, nothing loads
 * but the favicon, and the one inline style is allowed by its hash.
 */
export const SHARE_PAGE_CSP = `default-src 'none'; style-src 'sha256-${new Bun.CryptoHasher('sha256').update(STYLE).digest('base64')}'; img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`;

/** `body` is trusted markup; interpolate user data into it only through escapeHtml. */
export function page(title: string, body: string, status = 200, headers: Record<string, string> = {}): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Partnerd</title><link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<style>${STYLE}</style>
</head><body>${body}</body></html>`;
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': SHARE_PAGE_CSP,
      'x-content-type-options': 'nosniff',
      ...headers,
    },
  });
}
