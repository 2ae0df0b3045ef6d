// The overview's "To do" in a real browser: pending invites are partners whose status is 'pending'
// (never applicants or declined partners), applications waiting and the review queue are counted
// as the applications and review pages list them, and the admin navigation shows those two counts
// as small badges beside Applications and Review (1366 and 390 px).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { newId } from '../../src/lib/ids';
import { referredUser } from '../support/chain';
import type { TestService } from '../support/service';
import { ARTIFACTS, invitePartner, startWithAdmin } from './browser';

setDefaultTimeout(60_000);

const ADMIN = 'boss@example.com';
let svc: TestService;
let browser: Browser;
let admin: BrowserContext;
let page: Page;

beforeAll(async () => {
  ({ svc, browser, context: admin, page } = await startWithAdmin({ ADMIN_EMAILS: ADMIN }, ADMIN));

  // one invite pending, two applications waiting, one declined application
  await invitePartner(svc, { email: 'cy@example.com', name: 'Cy Invited' });
  for (const [email, name] of [
    ['ann@example.com', 'Ann Applicant'],
    ['abe@example.com', 'Abe Applicant'],
  ] as const) {
    await svc.sql`insert into partners (id, email, name, applied_at) values (${newId('partner')}, ${email}, ${name}, now())`;
  }
  await svc.sql`insert into partners (id, email, name, applied_at, declined_at) values (${newId('partner')}, 'dee@example.com', 'Dee Declined', now(), now())`;

  // three accrued commissions, one of them flagged: the review queue holds one
  const chain = await referredUser(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }], userId: 'cust-1' });
  for (const amount of [1000, 2000, 3000]) {
    expect((await svc.api('POST', '/v1/events', { body: { userId: chain.userId, type: 'invoice_paid', amount, currency: 'USD' } })).status).toBe(201);
  }
  const [flagged] = await svc.sql`select id from commissions order by id limit 1`;
  await svc.sql`update commissions set flags = '{review_amount}' where id = ${flagged!.id}`;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

const text = async (selector: string) => (await page.textContent(selector))?.replace(/\s+/g, ' ').trim();

describe('what waits for the admin', () => {
  test('the to-do counts invites, applications and the review queue as their pages list them', async () => {
    await page.goto(`${svc.url}/admin`);
    expect(await text('#todo-invites')).toBe('1 invite pending');
    expect(await text('#todo-applications')).toBe('2 applications waiting');
    expect(await page.getAttribute('#todo-applications a', 'href')).toBe('/admin/applications');
    expect(await text('#todo-review')).toBe('1 flagged commission to review');
    expect(await page.getAttribute('#todo-review a', 'href')).toBe('/admin/review');
    expect(await text('#todo-commissions')).toBe('3 commissions waiting for approval');

    // the pages the links open list exactly those
    await page.goto(`${svc.url}/admin/partners?status=invited`);
    expect(await page.locator('table tbody tr').count()).toBe(1);
    await page.goto(`${svc.url}/admin/review`);
    const reviewPage = await page.textContent('main');
    expect(reviewPage).toContain('1 commission waiting');
  });

  test('the navigation shows a badge beside Applications and Review, at 1366 and 390 px', async () => {
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${svc.url}/admin`);
      if (width === 390) await page.click('details.menu summary');
      expect(await text('nav a[href="/admin/applications"] .nav-badge')).toBe('2');
      expect(await page.getAttribute('nav a[href="/admin/applications"] .nav-badge', 'title')).toBe('2 waiting');
      expect(await text('nav a[href="/admin/review"] .nav-badge')).toBe('1');
      expect(await page.locator('nav .nav-badge').count()).toBe(2);
      await page.screenshot({ path: `${ARTIFACTS}overview-todo-${width}.png`, fullPage: true });
    }
  });

  test('no badge once nothing waits', async () => {
    await svc.sql`update partners set approved_at = now() where partner_status(partners) = 'applied'`;
    await svc.sql`update commissions set flags = '{}'`;
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${svc.url}/admin`);
    expect(await page.locator('nav .nav-badge').count()).toBe(0);
    expect(await page.locator('#todo-applications').count()).toBe(0);
    expect(await page.locator('#todo-review').count()).toBe(0);
  });
});
