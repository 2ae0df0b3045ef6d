// The signup questions on the admin Settings page, in a real browser with script off (the form needs
// none): the saved questions shown, one edited, one removed, one added with "Add a question" (the
// form comes back with everything typed kept), saved exactly as PATCH /v1/settings would store them;
// bad input shown beside its field with nothing changed. Then an application's answers appear under
// their questions' labels (not their keys) in the queue and on the partner page. Screenshots of the
// section and an application at 1366 and 390 px.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startService, type TestService } from '../support/service';
import { LAPTOP, launchBrowser, screenshot, screenshotBothWidths, signInAsAdmin } from './browser';

setDefaultTimeout(40_000);

const ADMIN = 'boss@operator.example';

let svc: TestService;
let browser: Browser;
let plain: BrowserContext;
let page: Page;

const stored = async () => (await svc.sql`select application_questions from settings`)[0]!.application_questions;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startService({ ADMIN_EMAILS: ADMIN }), launchBrowser()]);
  expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'review' } })).status).toBe(200);
  const signedIn = await browser.newContext({ viewport: LAPTOP });
  await signInAsAdmin(svc, await signedIn.newPage(), ADMIN);
  plain = await browser.newContext({ viewport: LAPTOP, javaScriptEnabled: false, storageState: await signedIn.storageState() });
  page = await plain.newPage();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('the Settings page: signup questions', () => {
  test('shows the questions in force (the built-in three until the operator sets any)', async () => {
    await page.goto(`${svc.url}/admin/settings`);
    expect(await page.textContent('#questions-heading')).toBe('Signup questions');
    expect(await page.inputValue('input[name=questionCount]')).toBe('3');
    expect([await page.inputValue('input[name=q0_key]'), await page.inputValue('input[name=q1_key]'), await page.inputValue('input[name=q2_key]')]).toEqual(['website', 'audience', 'promotion']);
    expect(await page.inputValue('input[name=q0_label]')).toBe('Website');
    expect(await page.inputValue('select[name=q0_type]')).toBe('url');
    expect(await page.inputValue('input[name=q1_maxLength]')).toBe('1000');
    expect(await stored()).toBeNull();
  });

  test('edit one, remove one, add one with "Add a question" (typing kept, nothing saved yet), then save', async () => {
    await page.goto(`${svc.url}/admin/settings`);
    await page.fill('input[name=q1_label]', 'Who follows you?');
    await page.check('input[name=q1_required]');
    await page.check('input[name=q2_remove]');
    await page.click('#questions button:has-text("Add a question")');
    // back with the removed one gone, an empty row in its place at the end, and the edit kept
    expect(await page.inputValue('input[name=questionCount]')).toBe('3');
    expect(await page.inputValue('input[name=q1_label]')).toBe('Who follows you?');
    expect(await page.isChecked('input[name=q1_required]')).toBe(true);
    expect(await page.inputValue('input[name=q2_key]')).toBe('');
    expect(await stored()).toBeNull();
    await page.fill('input[name=q2_label]', 'Your YouTube channel');
    await page.fill('input[name=q2_key]', 'youtube');
    await page.selectOption('select[name=q2_type]', 'url');
    await page.check('input[name=q2_required]');
    await page.fill('input[name=q2_hint]', 'https://youtube.com/@you');
    await page.click('#questions button:has-text("Save questions")');
    expect(await page.textContent('.notice.ok')).toBe('Signup questions saved. The sign-up page asks them from now on.');
    const expected = [
      { key: 'website', label: 'Website', type: 'url', required: false, hint: 'Your site, channel or profile: https://…' },
      { key: 'audience', label: 'Who follows you?', type: 'text', required: true, hint: 'Who reads or watches you, and roughly how many.', maxLength: 1000 },
      { key: 'youtube', label: 'Your YouTube channel', type: 'url', required: true, hint: 'https://youtube.com/@you' },
    ];
    expect(await stored()).toEqual(expected);
    expect((await svc.api('GET', '/v1/settings')).body.applicationQuestions).toEqual(expected);
    // the page shows what was saved, with no empty question
    expect(await page.inputValue('input[name=questionCount]')).toBe('3');
    expect(await page.inputValue('input[name=q2_key]')).toBe('youtube');
    await page.locator('#questions').scrollIntoViewIfNeeded();
    await screenshotBothWidths(page, 'settings-questions');
  });

  test('bad input shows beside each field, with a notice; nothing changes', async () => {
    const before = await stored();
    await page.goto(`${svc.url}/admin/settings`);
    await page.fill('input[name=q0_key]', 'Web Site');
    await page.fill('input[name=q1_key]', 'youtube');
    await page.fill('input[name=q1_maxLength]', 'lots');
    await page.fill('input[name=q2_label]', '');
    await page.click('#questions button:has-text("Save questions")');
    expect(await page.textContent('#f-q0_key-error')).toBe('a lower-case letter, then up to 39 lower-case letters, digits or _');
    expect(await page.getAttribute('#f-q0_key', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#f-q1_maxLength-error')).toBe('a whole number of characters, 1 to 5000 (empty: the default)');
    expect(await page.textContent('#f-q2_label-error')).toBe('required, at most 200 characters');
    expect(await page.textContent('#questions .notice.error')).toBe('3 fields need attention; nothing was saved.');
    // typed values kept
    expect(await page.inputValue('input[name=q0_key]')).toBe('Web Site');
    expect(await stored()).toEqual(before);
    await screenshot(page, 'settings-questions-errors-1366');

    // a key used twice, and a key the form itself uses
    await page.fill('input[name=q0_key]', 'email');
    await page.fill('input[name=q1_maxLength]', '');
    await page.fill('input[name=q2_label]', 'Your channel');
    await page.click('#questions button:has-text("Save questions")');
    expect(await page.textContent('#f-q0_key-error')).toBe('email is taken by the signup form itself');
    expect(await page.textContent('#f-q2_key-error')).toBe('the key youtube is used twice');
    expect(await stored()).toEqual(before);
  });
});

describe('an application shows its answers under the questions asked', () => {
  test('the queue and the partner page label each answer with its question, not its key', async () => {
    const answers = { website: 'https://ann.example', audience: 'Indie developers', youtube: 'https://youtube.com/@ann' };
    expect((await svc.api('POST', '/auth/signup', { key: null, body: { email: 'ann@example.com', name: 'Ann Archer', applicationAnswers: answers } })).status).toBe(202);
    const [row] = await svc.sql`select id from partners where email = 'ann@example.com'`;
    const id = row!.id as string;
    await page.goto(`${svc.url}/admin/applications`);
    const item = page.locator(`#application-${id}`);
    const labels = (await item.locator('dl.answers dt').allTextContents()).map((t) => t.trim());
    expect(labels).toEqual(['Website', 'Who follows you?', 'Your YouTube channel']);
    expect(await item.locator('dl.answers dd').nth(1).textContent()).toBe('Indie developers');
    expect(await item.locator('dl.answers a.answer-url').nth(1).getAttribute('href')).toBe('https://youtube.com/@ann');
    expect(await item.textContent()).not.toContain('youtube:');
    await screenshotBothWidths(page, 'admin-application-answers');

    await page.goto(`${svc.url}/admin/partners/${id}`);
    expect((await page.locator('#partner-application dl.answers dt').allTextContents()).map((t) => t.trim())).toEqual(['Website', 'Who follows you?', 'Your YouTube channel']);

    // a question renamed later: its old answers show under their key, marked as no longer asked
    const now = (await svc.api('GET', '/v1/settings')).body.applicationQuestions as { key: string }[];
    const renamed = now.map((q) => (q.key === 'audience' ? { ...q, key: 'followers' } : q));
    expect((await svc.api('PATCH', '/v1/settings', { body: { applicationQuestions: renamed } })).status).toBe(200);
    await page.goto(`${svc.url}/admin/applications`);
    expect((await item.locator('dl.answers dt').allTextContents()).map((t) => t.trim())).toEqual(['Website', 'Your YouTube channel', 'audience (no longer asked)']);

    // a label with markup is text on both pages
    const markup = '<img src=x onerror="window.__pwned=1">Site';
    const marked = renamed.map((q) => (q.key === 'website' ? { ...q, label: markup } : q));
    expect((await svc.api('PATCH', '/v1/settings', { body: { applicationQuestions: marked } })).status).toBe(200);
    await page.goto(`${svc.url}/admin/applications`);
    expect(await item.locator('dl.answers dt').first().textContent()).toBe(markup);
    expect(await page.locator('main img[src=x]').count()).toBe(0);
    await page.goto(`${svc.url}/admin/settings`);
    expect(await page.inputValue('input[name=q0_label]')).toBe(markup);
    expect(await page.textContent('[data-question="0"] legend')).toBe(`Question 1: ${markup}`);
    expect(await page.locator('main img[src=x]').count()).toBe(0);
  });
});
