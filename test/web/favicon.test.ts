// The site icon: /favicon.ico for whoever asks for it, and the SVG icon every page layout links.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

test('/favicon.ico answers an icon', async () => {
  const res = await fetch(`${svc.url}/favicon.ico`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/x-icon');
  const bytes = new Uint8Array(await res.arrayBuffer());
  // ICONDIR: reserved 0, type 1 (icon), at least one image
  expect([...bytes.slice(0, 4)]).toEqual([0, 0, 1, 0]);
  expect(bytes[4]).toBeGreaterThan(0);
});

test('the pages, the plain pages and /docs link an SVG icon that answers', async () => {
  const pages = ['/portal/sign-in', '/admin/sign-in', '/r/no-such-link', '/docs'];
  for (const path of pages) {
    const html = await (await fetch(`${svc.url}${path}`)).text();
    const href = html.match(/<link rel="icon" href="([^"]+)" type="image\/svg\+xml"/)?.[1];
    expect(href, path).toBe('/assets/favicon.svg');
  }
  const icon = await fetch(`${svc.url}/assets/favicon.svg`);
  expect(icon.status).toBe(200);
  expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  expect(await icon.text()).toStartWith('<svg');
});
