// Pages hide what the signed-in role cannot do: a viewer and a support member see campaigns,
// groups, codes, resources, webhooks, settings, applications and the review queue without the
// buttons and forms of changes their role may not make (support keeps codes, applications and
// review), the owner sees them all, and the routes still answer 403. Screenshots of the settings
// page as a viewer at 1366 and 390 px.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { referredUser } from '../support/chain';
import { startService, type TestService } from '../support/service';
import { ARTIFACTS, launchBrowser, postForm, signInAsAdmin } from './browser';

setDefaultTimeout(90_000);

const OWNER = 'owner@operator.example';
const ROLES = ['owner', 'support', 'viewer'] as const;
type Who = (typeof ROLES)[number];

let svc: TestService;
let browser: Browser;
const pages = {} as Record<Who, Page>;
const ids = {} as { campaign: string; group: string; endpoint: string };

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: OWNER, REVIEW_ABOVE: '100' }), launchBrowser()]);
  const chain = await referredUser(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }], userId: 'u_big' });
  ids.campaign = chain.campaignId;
  expect((await svc.api('POST', '/v1/events', { body: { userId: 'u_big', type: 'invoice_paid', amount: 500_000, currency: 'USD' } })).status).toBe(201);
  await svc.api('POST', '/v1/codes', { body: { code: 'SPRING10', partnerId: chain.partnerId, campaignId: chain.campaignId } });
  ids.group = (await svc.api('POST', '/v1/groups', { body: { name: 'Gold', rules: [] } })).body.id;
  ids.endpoint = (await svc.api('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.com/in', events: ['*'] } })).body.endpoint.id;
  await svc.api('POST', '/v1/resources', { body: { kind: 'link', title: 'Brand kit', url: 'https://example.com/kit' } });
  await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'review' } });
  await svc.api('POST', '/auth/signup', { key: null, body: { email: 'applicant@example.com', name: 'Applicant' } });
  for (const [email, role] of [
    ['sup@operator.example', 'support'],
    ['view@operator.example', 'viewer'],
  ]) {
    expect((await svc.api('POST', '/v1/team', { body: { email, role } })).status).toBe(201);
  }
  for (const who of ROLES) {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    pages[who] = await context.newPage();
    await signInAsAdmin(svc, pages[who], who === 'owner' ? OWNER : who === 'support' ? 'sup@operator.example' : 'view@operator.example');
    await pages[who].waitForURL(/\/admin$/);
  }
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/** What each page shows only to a role that may use it, and the roles that see it. */
const CHECKS: { name: string; path: () => string; selector: string; seenBy: Who[] }[] = [
  { name: 'campaigns: the new-campaign form', path: () => '/admin/campaigns', selector: 'form[action="/admin/campaigns"]', seenBy: ['owner'] },
  { name: 'a campaign: edit and archive', path: () => `/admin/campaigns/${ids.campaign}`, selector: '.own-actions a:has-text("Edit campaign")', seenBy: ['owner'] },
  { name: "a campaign's codes: the new-code form and archive buttons", path: () => `/admin/campaigns/${ids.campaign}`, selector: 'form[action="/admin/codes"]', seenBy: ['owner', 'support'] },
  { name: 'codes: archive', path: () => `/admin/campaigns/${ids.campaign}`, selector: '#codes-table .row-actions', seenBy: ['owner', 'support'] },
  { name: 'groups: new group', path: () => '/admin/groups', selector: 'a.button[href="#new"]', seenBy: ['owner'] },
  { name: 'a group: its edit form', path: () => `/admin/groups/${ids.group}`, selector: '#group-form', seenBy: ['owner'] },
  { name: 'resources: upload and write forms', path: () => '/admin/resources', selector: '#upload-form', seenBy: ['owner'] },
  { name: 'resources: the delete menu', path: () => '/admin/resources', selector: '#resources button.more', seenBy: ['owner'] },
  { name: 'webhooks: the new-endpoint form', path: () => '/admin/webhooks', selector: 'form[action="/admin/webhooks"]', seenBy: ['owner'] },
  { name: 'a webhook endpoint: test, pause, rotate, delete, edit', path: () => `/admin/webhooks/${ids.endpoint}`, selector: '#edit-form', seenBy: ['owner'] },
  { name: 'settings: the forms', path: () => '/admin/settings', selector: 'form[action="/admin/settings"]', seenBy: ['owner'] },
  { name: 'applications: approve and decline', path: () => '/admin/applications', selector: '.application .actions', seenBy: ['owner', 'support'] },
  { name: 'review: approve and reverse', path: () => '/admin/review', selector: '.review-item .actions', seenBy: ['owner', 'support'] },
  { name: 'review: the bulk buttons', path: () => '/admin/review', selector: '#review-bulk button', seenBy: ['owner', 'support'] },
];

describe('buttons a role cannot use are not shown', () => {
  for (const check of CHECKS) {
    test(check.name, async () => {
      for (const who of ROLES) {
        const page = pages[who];
        const res = await page.goto(`${svc.url}${check.path()}`);
        expect(res!.status()).toBe(200);
        const shown = (await page.locator(check.selector).count()) > 0;
        expect({ who, shown }).toEqual({ who, shown: check.seenBy.includes(who) });
      }
    });
  }

  test('a reader still sees the content: the settings as facts, the group its rules, the queue its items', async () => {
    const page = pages.viewer;
    await page.goto(`${svc.url}/admin/settings`);
    expect(await page.textContent('#settings-facts')).toContain('Attribution window');
    await page.goto(`${svc.url}/admin/groups/${ids.group}`);
    expect(await page.textContent('dl.facts')).toContain("None: the campaigns' rules");
    await page.goto(`${svc.url}/admin/review`);
    expect(await page.locator('.review-item').count()).toBe(1);
    await page.goto(`${svc.url}/admin/settings`);
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.screenshot({ path: `${ARTIFACTS}roles-viewer-settings-1366.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${ARTIFACTS}roles-viewer-settings-390.png`, fullPage: true });
    await page.setViewportSize({ width: 1366, height: 900 });
  });

  test('the routes still refuse: 403 for a viewer posting what the page hid, nothing changes', async () => {
    const page = pages.viewer;
    await page.goto(`${svc.url}/admin/settings`);
    const csrf = await page.evaluate(() => (document.querySelector('input[name=_csrf]') as HTMLInputElement | null)?.value ?? '');
    const before = await svc.sql`select attribution_window_days from settings`;
    const res = await postForm(page, '/admin/settings', { _csrf: csrf, attributionModel: 'linear', attributionWindowDays: '5', partnerSignup: 'open' });
    expect(res.status).toBe(403);
    expect(await svc.sql`select attribution_window_days from settings`).toEqual(before);
    const groups = await postForm(page, '/admin/groups', { _csrf: csrf, name: 'Sneaky' });
    expect(groups.status).toBe(403);
    // API keys are the owners' and admins' alone: the page itself is refused
    expect((await page.goto(`${svc.url}/admin/api-keys`))!.status()).toBe(403);
    expect((await pages.support.goto(`${svc.url}/admin/api-keys`))!.status()).toBe(403);
    expect(await (await pages.owner.goto(`${svc.url}/admin/api-keys`))!.status()).toBe(200);
    expect(await pages.owner.locator('form[action="/admin/api-keys"]').count()).toBe(1);
  });
});
