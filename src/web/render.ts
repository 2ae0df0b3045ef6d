// Turning rendered JSX (a string from @kitajs/html) into an HTML answer with the page headers.

/**
 * Scripts and styles come only from our own /assets; no inline script can run even if escaping
 * were ever missed. Forms may only post back to us, and no other site may frame a page.
 */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function render(html: string | Promise<string>, init: { status?: number; headers?: Record<string, string> } = {}): Response | Promise<Response> {
  const make = (body: string) =>
    new Response('<!doctype html>' + body, {
      status: init.status ?? 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': PAGE_CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'same-origin',
        ...init.headers,
      },
    });
  return typeof html === 'string' ? make(html) : html.then(make);
}

/** A 303 after a successful form post, so reloading the next page does not post again. */
export function seeOther(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...headers } });
}
