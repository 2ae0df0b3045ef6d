// A first run with no dead end: GET / is a start page that leads to the admin, the partner portal
// and the docs (a JSON client gets the same links), and the start log says when no admin can sign
// in and where sign-in links go without a mail server.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { newId } from '../../src/lib/ids';
import { eventually } from '../support/eventually';
import { createTestDatabase } from '../support/postgres';
import { spawnService } from '../support/process';
import { startService, type TestService } from '../support/service';
import { launchBrowser, newPage, screenshot } from '../web/browser';

setDefaultTimeout(60_000);

let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('GET /', () => {
  test('a browser gets a start page linking the admin, the portal and the docs, each of which answers', async () => {
    await svc.sql`update settings set program_name = 'Acme partners', brand_color = '#7c3aed'`;
    const res = await fetch(`${svc.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    for (const size of [{ phone: false, width: 1366 }, { phone: true, width: 390 }]) {
      const { page } = await newPage(browser, { phone: size.phone });
      if (!size.phone) await page.setViewportSize({ width: 1366, height: 900 });
      await page.goto(`${svc.url}/`);
      expect(await page.textContent('.auth-brand')).toBe('Acme partners');
      const links = await page.$$eval('.start-links a', (as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
      expect(links).toEqual([
        ['Partner portal', '/portal'],
        ['Admin dashboard', '/admin'],
        ['API reference', '/docs'],
        ['OpenAPI document', '/openapi.json'],
      ]);
      // the card is centred and fits the screen: no sideways scroll
      const box = (await page.locator('.auth-card').boundingBox())!;
      const viewport = page.viewportSize()!;
      expect(Math.abs(box.x + box.width / 2 - viewport.width / 2)).toBeLessThan(2);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await screenshot(page, `start-${size.width}`);
      // each link leads somewhere that answers
      await page.click('text=Partner portal');
      expect(page.url()).toBe(`${svc.url}/portal/sign-in`);
      await page.goto(`${svc.url}/`);
      await page.click('text=Admin dashboard');
      expect(page.url()).toBe(`${svc.url}/admin/sign-in`);
      await page.close();
    }
    expect((await fetch(`${svc.url}/docs`)).status).toBe(200);
  });

  test('a JSON client gets the links as JSON', async () => {
    const res = await fetch(`${svc.url}/`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({ name: expect.any(String), links: { admin: '/admin', portal: '/portal', docs: '/docs', openapi: '/openapi.json' } });
  });
});

describe('the start log', () => {
  async function startLog(env: Record<string, string>, team: string[] = []): Promise<string> {
    const db = await createTestDatabase(await globalThis.__partnerdTestServer!);
    for (const email of team) await db.sql`insert into team_members (id, email, role, source) values (${newId('teamMember')}, ${email}, 'admin', 'invite')`;
    const child = await spawnService(db.url, { LOG_LEVEL: 'info', ...env });
    try {
      // the warnings are written right after the "listening" line, in the same turn
      return await eventually(() => {
        const out = child.output();
        if (!out.includes('partnerd listening')) throw new Error(`not started yet:\n${out}`);
        return out;
      }, { timeout: 20_000 });
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited();
      await db.drop();
    }
  }

  test('no ADMIN_EMAILS and no SMTP_URL: both are warned about, naming the variables and where links go', async () => {
    const out = await startLog({});
    expect(out).toContain('No admin can sign in: ADMIN_EMAILS is empty');
    expect(out).toContain('sign-in and invite links are not mailed but written to the service log');
  });

  test('no ADMIN_EMAILS but someone on the team: nobody is told that no admin can sign in', async () => {
    const out = await startLog({ SMTP_URL: 'smtp://127.0.0.1:2525' }, ['member@operator.example']);
    expect(out).toContain('partnerd listening');
    expect(out).not.toContain('No admin can sign in');
  });

  test('a complete install starts without either warning', async () => {
    const out = await startLog({ ADMIN_EMAILS: 'boss@operator.example', SMTP_URL: 'smtp://127.0.0.1:2525' });
    expect(out).not.toContain('No admin can sign in');
    expect(out).not.toContain('SMTP_URL is unset');
  });
});
