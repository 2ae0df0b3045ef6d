// Partner emails on a phone and in people's words: the monthly statement fits 390 px and never
// breaks an amount across lines; event types read as words ("Paid invoice", "Recruit bonus").
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { eventLabel } from '../../src/lib/event-labels';
import { renderEmail } from '../../src/mail/render';
import { partnerTemplates } from '../../src/mail/partner-templates';
import { launchBrowser, newPage, screenshot } from '../web/browser';

setDefaultTimeout(30_000);

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

const BRAND = { programName: 'Acme partners', logoUrl: null, brandColor: '#0f766e', supportEmail: 'help@acme.example', baseUrl: 'https://partners.acme.example' };

function html(template: keyof typeof partnerTemplates, data: unknown): string {
  const t = partnerTemplates[template] as { subject(d: unknown, b: typeof BRAND): string; body(d: unknown, b: typeof BRAND): Parameters<typeof renderEmail>[1] };
  return renderEmail(t.subject(data, BRAND), t.body(data, BRAND), BRAND).html;
}

describe('event types in words', () => {
  test.each([
    ['invoice_paid', 'Paid invoice'],
    ['signup', 'Signup'],
    ['trial_started', 'Trial started'],
    ['subscription_created', 'New subscription'],
    ['recruit_override', 'Recruit bonus'],
    ['demo_booked', 'Demo booked'],
    ['order.completed', 'Order completed'],
    ['___', 'Sale'],
  ])('%p reads %p', (type, label) => expect(eventLabel(type)).toBe(label));

  test('the payout email lists what each commission was for, never its id', () => {
    const out = html('payout_sent', partnerTemplates.payout_sent.sample);
    expect(out).toContain('Paid invoice');
    expect(out).toContain('Recruit bonus');
    expect(out).not.toMatch(/com_|recruit_override|invoice_paid/);
  });
});

describe('the monthly statement on a phone', () => {
  const data = {
    partnerName: 'Ada Lovelace',
    month: '2026-10',
    lines: [
      { currency: 'EUR', earned: '12345.00', approved: '9876.50', paid: '37.50', reversed: '1250.75', count: 40 },
      { currency: 'USD', earned: '87.50', approved: '50.00', paid: '37.50', reversed: '12.50', count: 7 },
    ],
  };

  test.each([390, 1366])('at %i px: no sideways scroll, every amount on one line', async (width) => {
    const { page } = await newPage(browser, { phone: width === 390 });
    await page.setViewportSize({ width, height: 844 });
    await page.setContent(html('monthly_statement', data));
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    const amounts = await page.$$eval('td', (cells) =>
      cells
        .filter((c) => /^\d+\.\d{2}$/.test(c.textContent ?? ''))
        .map((c) => {
          const range = document.createRange();
          range.selectNodeContents(c);
          return { text: c.textContent, lines: new Set(Array.from(range.getClientRects() as unknown as ArrayLike<DOMRect>).map((r) => Math.round(r.top))).size };
        }),
    );
    expect(amounts).toHaveLength(8);
    for (const a of amounts) expect(a).toEqual({ text: a.text, lines: 1 });
    await screenshot(page, `email-statement-${width}`);
    await page.close();
  });
});
