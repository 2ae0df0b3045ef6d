// Who is on the other end of a request: the socket address (Bun's server.requestIP), or with
// TRUST_PROXY=n the n-th X-Forwarded-For entry from the right (the one the outermost trusted proxy saw).
import type { Server } from 'bun';

const servers = new WeakMap<Request, Server<unknown>>();

/** Called by the fetch handler in front of Elysia, which alone sees Bun's server object. */
export function rememberServer(request: Request, server: Server<unknown>): void {
  servers.set(request, server);
}

/** `server`: Bun's server object when the caller holds it (routes served ahead of Elysia do). */
export function clientAddress(request: Request, trustProxy: number, server = servers.get(request)): string | null {
  if (trustProxy > 0) {
    const forwarded = request.headers.get('x-forwarded-for');
    if (forwarded) {
      const hops = forwarded.split(',').map((h) => h.trim()).filter(Boolean);
      const hop = hops[Math.max(0, hops.length - trustProxy)];
      if (hop) return hop.slice(0, 100);
    }
  }
  const address = server?.requestIP(request)?.address;
  if (!address) return null;
  // a dual-stack socket shows IPv4 visitors as ::ffff:a.b.c.d; hash them as a.b.c.d
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
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
