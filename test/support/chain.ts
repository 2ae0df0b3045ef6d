// The whole chain over HTTP: a campaign, a partner, its share link, a visitor's click, identify.
import { expect } from 'bun:test';
import type { TestService } from './service';

/** A desktop browser's user agent: a test client's own (Bun, curl) reads as a bot (bot_click) and never earns. */
export const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

export type Chain = { campaignId: string; partnerId: string; slug: string; clickId: string; userId: string };

export async function campaign(svc: TestService, body: Record<string, unknown>): Promise<string> {
  const res = await svc.api('POST', '/v1/campaigns', {
    body: { name: 'Pro plan', destinationUrl: 'https://app.example.com/signup', currency: 'USD', ...body },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

export async function partner(svc: TestService, email: string, campaignIds?: string[]): Promise<string> {
  const res = await svc.api('POST', '/v1/partners', { body: { email, name: email.split('@')[0], sendInvite: false, campaignIds } });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** A visitor follows the partner's share link; answers the click id the redirect carried. */
export async function click(svc: TestService, campaignId: string, partnerId: string): Promise<{ slug: string; clickId: string }> {
  const link = await svc.api('POST', '/v1/links', { body: { campaignId, partnerId } });
  expect(link.status).toBe(201);
  const res = await fetch(`${svc.url}/r/${link.body.slug}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  expect(res.status).toBe(302);
  const clickId = new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
  expect(clickId).toMatch(/^clk_/);
  await clickStored(svc, clickId);
  return { slug: link.body.slug, clickId };
}

export async function identify(svc: TestService, userId: string, clickIds: string[]): Promise<void> {
  const key = await svc.publishableKey();
  // the customer's own address (read when TRUST_PROXY is on), not the machine a partner signed in from
  const res = await svc.api('POST', '/v1/identify', { key, body: { userId, clickIds }, headers: { 'x-forwarded-for': '198.51.100.1' } });
  expect(res.status).toBeLessThan(300);
}

/** Campaign (given rules) -> partner -> link -> click -> identified user. */
export async function referredUser(svc: TestService, options: { rules: unknown[]; userId: string; email?: string; campaignId?: string }): Promise<Chain> {
  const campaignId = options.campaignId ?? (await campaign(svc, { rules: options.rules }));
  const partnerId = await partner(svc, options.email ?? `${options.userId}-partner@example.com`, [campaignId]);
  const { slug, clickId } = await click(svc, campaignId, partnerId);
  await identify(svc, options.userId, [clickId]);
  return { campaignId, partnerId, slug, clickId, userId: options.userId };
}

/** Clicks are written in batches: write the buffered ones now and check this one landed. */
export async function clickStored(svc: TestService, clickId: string): Promise<void> {
  await svc.ctx.links.clicks.flush();
  expect(await svc.sql`select 1 from clicks where id = ${clickId}`).toHaveLength(1);
}
