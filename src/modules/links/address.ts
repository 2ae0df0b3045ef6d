// Who is on the other end of a request: the socket address (Bun's server.requestIP), or with
// TRUST_PROXY=n the n-th X-Forwarded-For entry from the right (the one the outermost trusted proxy saw).
import type { Server } from 'bun';
import { canonicalIp } from '../../lib/ip';

/** Bun's server object, which alone knows a request's socket address: ctx.http, set by serve() once it listens. */
export type HttpServerRef = { server: Server<unknown> | null };

/**
 * The address in its canonical form (lib/ip.ts: a dual-stack socket's ::ffff:a.b.c.d is a.b.c.d),
 * or null when there is none; a forwarded entry that is not an address counts as none.
 * `server`: the server the request came in on (ctx.http.server; null outside a served process).
 */
export function clientAddress(request: Request, trustProxy: number, server: Server<unknown> | null | undefined): string | null {
  if (trustProxy > 0) {
    const forwarded = request.headers.get('x-forwarded-for');
    if (forwarded) {
      const hops = forwarded.split(',').map((h) => h.trim()).filter(Boolean);
      const hop = hops[Math.max(0, hops.length - trustProxy)];
      if (hop) return canonicalIp(hop);
    }
  }
  const address = server?.requestIP(request)?.address;
  return address ? canonicalIp(address) : null;
}

const CORS_PATH = /^(\/v1)?\/(identify|clicks)$/;

/** identify and clicks are called from browsers on the operator's own site: any origin, no cookies. */
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-max-age': '86400',
};

/** Adds the CORS headers to every answer of the CORS paths, errors included. */
export function addCorsHeaders(pathname: string, response: Response): void {
  if (!CORS_PATH.test(pathname)) return;
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
}
