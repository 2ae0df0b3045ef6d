// Fraud signals end to end (DESIGN.md "Fraud and review"): each flag raised and not raised, through
// real redirects, identify calls, sign-ins, events and Stripe deliveries; the holdback job leaves
// flagged commissions alone; ?flagged; the commission.accrued payload.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { approveDueCommissions } from '../../src/modules/commissions/lifecycle';
import { customer, deliver, invoice, stripeEvent, WEBHOOK_SECRET } from '../billing/fixtures';
import { campaign, partner } from '../support/chain';
import { startService, type TestService } from '../support/service';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const AGENTS = [
  CHROME,
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
];

let svc: TestService;
let publishable: string;
let campaignId: string;
let n = 0;

beforeAll(async () => {
  svc = await startService({ TRUST_PROXY: '1', FRAUD_CLICKS_PER_IP_HOUR: '3', REVIEW_ABOVE: '100', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, HOLDBACK_DAYS: '0' });
  publishable = await svc.publishableKey();
  campaignId = await campaign(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
}, 60_000);
afterAll(() => svc.stop());

async function newPartner(email = `p${++n}@partners.example`): Promise<{ id: string; slug: string; email: string }> {
  const id = await partner(svc, email, [campaignId]);
  const link = await svc.api('POST', '/v1/links', { body: { campaignId, partnerId: id } });
  expect(link.status).toBe(201);
  return { id, slug: link.body.slug, email };
}

/** A visitor follows a share link from `ip` with `userAgent`; answers the click id. */
async function follow(slug: string, ip: string, userAgent = CHROME): Promise<string> {
  const res = await fetch(`${svc.url}/r/${slug}`, { redirect: 'manual', headers: { 'x-forwarded-for': ip, 'user-agent': userAgent } });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!).searchParams.get('pp_click')!;
}

async function identify(userId: string, clickIds: string[], ip = '198.51.100.200'): Promise<void> {
  const res = await svc.api('POST', '/v1/identify', { key: publishable, body: { userId, clickIds }, headers: { 'x-forwarded-for': ip } });
  expect(res.status).toBe(200);
}

/** The partner signs in to the portal through an emailed link, from `ip`. */
async function signIn(email: string, ip: string): Promise<void> {
  const asked = await svc.api('POST', '/auth/magic-link', { key: null, body: { email } });
  expect(asked.status).toBe(202);
  const link = await svc.mail.magicLink(email);
  const res = await fetch(link, { redirect: 'manual', headers: { 'x-forwarded-for': ip } });
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toBe('/portal');
}

/** A paid invoice of `amount` cents; answers the one commission it accrued. */
async function purchase(userId: string, amount: number, customerEmail?: string | null): Promise<any> {
  const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount, currency: 'USD', ...(customerEmail === undefined ? {} : { customerEmail }) } });
  expect(res.status).toBe(201);
  const list = await svc.api('GET', `/v1/commissions?limit=200`);
  return list.body.commissions.find((c: any) => c.eventId === res.body.id);
}

const userId = (label: string) => `${label}-${++n}`;
let ips = 0;
/** A fresh visitor address each time, so the flood limit (3 in this file) stays out of tests about other flags. */
const nextIp = () => `10.77.${Math.floor(++ips / 250)}.${ips % 250}`;

describe('self_referral', () => {
  test('the customer email equals the partner email, compared lower case and without +tag', async () => {
    const p = await newPartner(`ann${++n}@example.com`);
    const [local, domain] = p.email.split('@');
    const cases = [
      { label: 'plus-addressed, mixed case', email: `${local!.toUpperCase()}+1@EXAMPLE.com`, flagged: true },
      { label: 'exact', email: p.email, flagged: true },
      { label: 'upper-case domain', email: `${local}+shop@${domain!.toUpperCase()}`, flagged: true },
      { label: 'another local part', email: `${local}x@${domain}`, flagged: false },
      { label: 'another domain', email: `${local}@example.org`, flagged: false },
      { label: 'no email', email: null, flagged: false },
    ];
    for (const c of cases) {
      const user = userId('email');
      await identify(user, [await follow(p.slug, nextIp())]);
      const commission = await purchase(user, 5_000, c.email);
      expect({ label: c.label, flags: commission.flags }).toEqual({ label: c.label, flags: c.flagged ? ['self_referral'] : [] });
      const [row] = await svc.sql`select flag_evidence from commissions where id = ${commission.id}`;
      if (c.flagged) expect(row!.flag_evidence.self_referral).toEqual({ customerEmail: c.email, partnerEmail: p.email, ipHashes: [] });
      else expect(row!.flag_evidence).toEqual({});
    }
  });

  test("the customer was identified from a network the partner signed in from (IPv4, IPv6 /64)", async () => {
    const p = await newPartner();
    await signIn(p.email, '203.0.113.50');
    await signIn(p.email, '2001:db8:aa:bb:1111:2222:3333:4444');
    const cases = [
      { label: 'same IPv4 address', ip: '203.0.113.50', flagged: true },
      { label: 'another address in the same IPv6 /64', ip: '2001:db8:aa:bb::9', flagged: true },
      { label: 'same /64 written in full', ip: '2001:0db8:00aa:00bb:ffff:0:0:1', flagged: true },
      { label: 'neighbouring IPv4 address', ip: '203.0.113.51', flagged: false },
      { label: 'another IPv6 /64', ip: '2001:db8:aa:bc::9', flagged: false },
    ];
    for (const c of cases) {
      const user = userId('ip');
      await identify(user, [await follow(p.slug, nextIp())], c.ip);
      const commission = await purchase(user, 5_000);
      expect({ label: c.label, flags: commission.flags }).toEqual({ label: c.label, flags: c.flagged ? ['self_referral'] : [] });
      if (c.flagged) {
        const [row] = await svc.sql`select flag_evidence from commissions where id = ${commission.id}`;
        expect(row!.flag_evidence.self_referral.ipHashes).toHaveLength(1);
        const [known] = await svc.sql`select 1 from partner_sign_in_ips where partner_id = ${p.id} and ip_hash = ${row!.flag_evidence.self_referral.ipHashes[0]}`;
        expect(known).toBeDefined();
      }
    }
    const signIns = await svc.sql`select sign_ins from partner_sign_in_ips where partner_id = ${p.id}`;
    expect(signIns.map((r) => r.sign_ins)).toEqual([1, 1]);
  });

  test('another partner signing in from the customer network does not flag this partner', async () => {
    const p = await newPartner();
    const other = await newPartner();
    await signIn(other.email, '203.0.113.77');
    const user = userId('other');
    await identify(user, [await follow(p.slug, nextIp())], '203.0.113.77');
    expect((await purchase(user, 5_000)).flags).toEqual([]);
  });
});

describe('click_flood', () => {
  test('clicks beyond the hourly limit from one network on one link are kept but never credited, whatever the user agent', async () => {
    const p = await newPartner();
    // five clicks from one IPv6 /64, each from another address and with another browser
    const clicks = [];
    for (let i = 0; i < 5; i++) clicks.push(await follow(p.slug, `2001:db8:f:1::${i + 1}`, AGENTS[i]));
    // the same network on another link, and another network on this link: counted apart
    const q = await newPartner();
    const elsewhere = await follow(q.slug, '2001:db8:f:1::99');
    const otherNetwork = await follow(p.slug, '2001:db8:f:2::1');
    await svc.ctx.links.clicks.flush();
    const rows = await svc.sql`select id, uncredited_reason from clicks where id = any(${[...clicks, elsewhere, otherNetwork]}) order by id`;
    const reason = new Map(rows.map((r) => [r.id, r.uncredited_reason]));
    expect(clicks.map((id) => reason.get(id))).toEqual([null, null, null, 'click_flood', 'click_flood']);
    expect(reason.get(elsewhere)).toBeNull();
    expect(reason.get(otherNetwork)).toBeNull();

    // a customer who came only through flood clicks is not attributed
    const onlyFlood = userId('flood-only');
    await identify(onlyFlood, [clicks[3]!, clicks[4]!]);
    const res = await svc.api('POST', '/attribution/events', { body: { userId: onlyFlood, type: 'invoice_paid', value: 50, currency: 'USD' } });
    expect(res.body.attribution.status).toBe('no_click');

    // one who also came through a credited click earns, flagged, with the flood clicks as evidence
    const mixed = userId('flood-mixed');
    await identify(mixed, [clicks[0]!, clicks[4]!]);
    const flagged = await purchase(mixed, 5_000);
    expect(flagged.flags).toEqual(['click_flood']);
    const [row] = await svc.sql`select flag_evidence from commissions where id = ${flagged.id}`;
    expect(row!.flag_evidence.click_flood).toEqual({ clickIds: [clicks[4]] });

    // and one who came through the clean clicks only is not flagged
    const clean = userId('flood-clean');
    await identify(clean, [clicks[1]!, otherNetwork]);
    expect((await purchase(clean, 5_000)).flags).toEqual([]);
  });

  test('IPv4 addresses are counted one by one', async () => {
    const p = await newPartner();
    const clicks = [];
    for (let i = 0; i < 5; i++) clicks.push(await follow(p.slug, `192.0.2.${100 + i}`));
    await svc.ctx.links.clicks.flush();
    const rows = await svc.sql`select uncredited_reason from clicks where id = any(${clicks})`;
    expect(rows.every((r) => r.uncredited_reason === null)).toBe(true);
  });
});

describe('bot_click', () => {
  test('a known crawler or bot user agent is kept but never credited; browsers are credited', async () => {
    const p = await newPartner();
    const agents = {
      googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      curl: 'curl/8.5.0',
      headless: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
      chrome: CHROME,
      iphone: AGENTS[3]!,
    };
    const ids: Record<string, string> = {};
    let i = 0;
    for (const [label, agent] of Object.entries(agents)) ids[label] = await follow(p.slug, `198.18.0.${++i}`, agent);
    await svc.ctx.links.clicks.flush();
    const rows = await svc.sql`select id, uncredited_reason from clicks where id = any(${Object.values(ids)})`;
    const reason = Object.fromEntries(Object.entries(ids).map(([label, id]) => [label, rows.find((r) => r.id === id)!.uncredited_reason]));
    expect(reason).toEqual({ googlebot: 'bot_click', curl: 'bot_click', headless: 'bot_click', chrome: null, iphone: null });

    const botOnly = userId('bot-only');
    await identify(botOnly, [ids.googlebot!]);
    const res = await svc.api('POST', '/attribution/events', { body: { userId: botOnly, type: 'invoice_paid', value: 50, currency: 'USD' } });
    expect(res.body.attribution.status).toBe('no_click');

    const mixed = userId('bot-mixed');
    await identify(mixed, [ids.chrome!, ids.curl!]);
    const commission = await purchase(mixed, 5_000);
    expect(commission.flags).toEqual(['bot_click']);

    const human = userId('human');
    await identify(human, [ids.iphone!]);
    expect((await purchase(human, 5_000)).flags).toEqual([]);
  });

  test('a bot click through POST /v1/clicks is marked too', async () => {
    const p = await newPartner();
    const res = await svc.api('POST', '/v1/clicks', { key: publishable, body: { slug: p.slug, userAgent: 'Bingbot/2.0' } });
    expect(res.status).toBe(201);
    await svc.ctx.links.clicks.flush();
    const [row] = await svc.sql`select uncredited_reason from clicks where id = ${res.body.clickId}`;
    expect(row!.uncredited_reason).toBe('bot_click');
  });
});

describe('duplicate_customer', () => {
  test('a billing customer already credited to one partner, now credited to another, is flagged', async () => {
    const first = await newPartner();
    const second = await newPartner();
    const userA = userId('dup-a');
    const userB = userId('dup-b');
    await identify(userA, [await follow(first.slug, nextIp())]);
    await identify(userB, [await follow(second.slug, nextIp())]);

    expect((await deliver(svc.url, stripeEvent('customer.created', customer('cus_dup1', userA)))).status).toBe(200);
    expect((await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_dup1', 'cus_dup1', 2_000)))).status).toBe(200);
    // the same partner paid again for its own customer: not a duplicate
    expect((await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_dup2', 'cus_dup1', 2_000)))).status).toBe(200);
    // the customer is now linked to another user, referred by another partner
    expect((await deliver(svc.url, stripeEvent('customer.updated', customer('cus_dup1', userB)))).status).toBe(200);
    expect((await deliver(svc.url, stripeEvent('invoice.paid', invoice('in_dup3', 'cus_dup1', 2_000)))).status).toBe(200);

    const rows = await svc.sql`
      select c.partner_id, c.flags, c.flag_evidence, e.customer_id, e.customer_email
      from commissions c join events e on e.id = c.event_id
      where e.customer_id = 'cus_dup1' order by c.id`;
    expect(rows.map((r) => [r.partner_id, r.flags])).toEqual([
      [first.id, []],
      [first.id, []],
      [second.id, ['duplicate_customer']],
    ]);
    expect(rows[2]!.flag_evidence.duplicate_customer).toMatchObject({ provider: 'stripe', customerId: 'cus_dup1', otherPartnerId: first.id });
    expect(rows[0]!.customer_email).toBe('cus_dup1@example.com'); // invoice.customer_email reached the event
  });

  test("the customer's email from Stripe raises self_referral", async () => {
    const p = await newPartner(`owner${++n}@shop.example`);
    const user = userId('stripe-self');
    await identify(user, [await follow(p.slug, nextIp())]);
    expect((await deliver(svc.url, stripeEvent('customer.created', customer('cus_self1', user)))).status).toBe(200);
    const paid = { ...invoice('in_self1', 'cus_self1', 3_000), customer_email: p.email.replace('@', '+billing@').toUpperCase() };
    expect((await deliver(svc.url, stripeEvent('invoice.paid', paid))).status).toBe(200);
    const [row] = await svc.sql`select c.flags from commissions c join events e on e.id = c.event_id where e.customer_id = 'cus_self1'`;
    expect(row!.flags).toEqual(['self_referral']);
  });
});

describe('review_amount', () => {
  test('a commission above REVIEW_ABOVE (major units) is flagged; at it, not', async () => {
    const p = await newPartner();
    const cases = [
      { label: '100.00 exactly', amount: 100_000, flagged: false },
      { label: '100.01', amount: 100_010, flagged: true },
      { label: '99.99', amount: 99_990, flagged: false },
    ];
    for (const c of cases) {
      const user = userId('amount');
      await identify(user, [await follow(p.slug, nextIp())]);
      const commission = await purchase(user, c.amount);
      expect({ label: c.label, flags: commission.flags }).toEqual({ label: c.label, flags: c.flagged ? ['review_amount'] : [] });
      if (c.flagged) {
        const [row] = await svc.sql`select flag_evidence from commissions where id = ${commission.id}`;
        expect(row!.flag_evidence.review_amount).toEqual({ amount: '100.01', threshold: '100', currency: 'USD' });
      }
    }
  });
});

describe('flagged commissions wait for a person', () => {
  test('the holdback job approves the clean ones and leaves the flagged ones; approve and reverse by hand still work', async () => {
    const p = await newPartner(`hold${++n}@example.com`);
    const made = [];
    for (const email of [null, p.email, p.email, null]) {
      const user = userId('hold');
      await identify(user, [await follow(p.slug, nextIp())]);
      made.push(await purchase(user, 5_000, email));
    }
    expect(made.map((c) => c.flags)).toEqual([[], ['self_referral'], ['self_referral'], []]);
    await approveDueCommissions(svc.sql);
    const status = async (id: string) => (await svc.api('GET', `/v1/commissions/${id}`)).body.status;
    expect([await status(made[0].id), await status(made[1].id), await status(made[2].id), await status(made[3].id)]).toEqual([
      'approved',
      'accrued',
      'accrued',
      'approved',
    ]);
    // a second run still leaves them
    await approveDueCommissions(svc.sql);
    expect(await status(made[1].id)).toBe('accrued');

    const approved = await svc.api('POST', `/v1/commissions/${made[1].id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', flags: ['self_referral'] });
    const reversed = await svc.api('POST', `/v1/commissions/${made[2].id}/reverse`, { body: { reason: 'self-referral' } });
    expect(reversed.status).toBe(200);
    expect(reversed.body).toMatchObject({ status: 'reversed', reason: 'self-referral' });
  });
});

describe('GET /v1/commissions?flagged', () => {
  test('true lists only flagged commissions, false only clean ones; anything else is a 400', async () => {
    const p = await newPartner(`list${++n}@example.com`);
    const flaggedUser = userId('list');
    await identify(flaggedUser, [await follow(p.slug, nextIp())]);
    const flagged = await purchase(flaggedUser, 5_000, p.email);
    const cleanUser = userId('list');
    await identify(cleanUser, [await follow(p.slug, nextIp())]);
    const clean = await purchase(cleanUser, 5_000);

    const yes = await svc.api('GET', `/v1/commissions?partnerId=${p.id}&flagged=true`);
    expect(yes.status).toBe(200);
    expect(yes.body.commissions.map((c: any) => c.id)).toEqual([flagged.id]);
    const no = await svc.api('GET', `/v1/commissions?partnerId=${p.id}&flagged=false`);
    expect(no.body.commissions.map((c: any) => c.id)).toEqual([clean.id]);
    const both = await svc.api('GET', `/v1/commissions?partnerId=${p.id}`);
    expect(both.body.commissions).toHaveLength(2);
    const all = await svc.api('GET', '/v1/commissions?flagged=true&limit=200');
    expect(all.body.commissions.every((c: any) => c.flags.length > 0)).toBe(true);

    for (const bad of ['yes', '1', '', 'TRUE']) {
      const res = await svc.api('GET', `/v1/commissions?flagged=${bad}`);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect(res.body.code).toBeString();
    }
  });
});

describe('commission.accrued payload', () => {
  test('carries the flags (empty when clean)', async () => {
    const p = await newPartner(`hook${++n}@example.com`);
    const made = [];
    for (const email of [p.email, null]) {
      const user = userId('hook');
      await identify(user, [await follow(p.slug, nextIp())]);
      made.push(await purchase(user, 5_000, email));
    }
    const payloads = await svc.sql`select data from webhook_events where type = 'commission.accrued' and data ->> 'partnerId' = ${p.id} order by id`;
    expect(payloads.map((r) => [r.data.commissionId, r.data.flags])).toEqual([
      [made[0].id, ['self_referral']],
      [made[1].id, []],
    ]);
  });
});

describe('bad input', () => {
  test('a customerEmail that is not an email is a 400 and records nothing', async () => {
    const before = await svc.sql`select count(*)::int as n from events`;
    for (const customerEmail of ['not-an-email', 'a b@example.com', '', 42, 'x'.repeat(400) + '@example.com', ['a@example.com']]) {
      const res = await svc.api('POST', '/v1/events', { body: { userId: 'bad-input', type: 'invoice_paid', amount: 100, currency: 'USD', customerEmail } });
      expect({ customerEmail, status: res.status }).toEqual({ customerEmail, status: 400 });
      expect(res.body.code).toBeString();
    }
    const nul = await svc.api('POST', '/attribution/events', { body: { userId: 'bad-input', type: 'invoice_paid', customerEmail: 'a\u0000@example.com' } });
    expect(nul.status).toBe(400);
    const after = await svc.sql`select count(*)::int as n from events`;
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});
