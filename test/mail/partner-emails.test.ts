// The emails partners and admins receive, read from a real SMTP server: content, links, headers,
// branding, the partners' switches and one-click unsubscribe.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { enqueueEmail } from '../../src/mail/outbox';
import type { CaughtMail } from '../support/mail';
import { campaign, click, identify, partner } from '../support/chain';
import { startService, type TestService } from '../support/service';

const ADMIN = 'ops@operator.example';
const BRAND = { programName: 'Acme <Partners> & Co', logoUrl: 'https://cdn.acme.example/logo.png', brandColor: '#0F766E', supportEmail: 'help@acme.example' };

let svc: TestService;
let campaignId: string;
let alice: string;
let aliceKey: string;
let user = 0;

beforeAll(async () => {
  svc = await startService({ ADMIN_EMAILS: ADMIN, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
  expect((await svc.api('PATCH', '/v1/settings', { body: BRAND })).status).toBe(200);
  campaignId = await campaign(svc, { name: 'Spring launch', rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 20 }] });
  alice = await partner(svc, 'alice@example.com', [campaignId]);
  aliceKey = await svc.partnerKey(alice);
}, 60_000);
afterAll(() => svc.stop());

/** A referred customer pays `amount` (minor units): Alice earns 20%. Answers the commission id. */
async function sale(amount: number): Promise<string> {
  const userId = `u_${++user}`;
  const { clickId } = await click(svc, campaignId, alice);
  await identify(svc, userId, [clickId]);
  const res = await svc.api('POST', '/v1/events', { body: { userId, type: 'invoice_paid', amount, currency: 'USD' } });
  expect(res.status).toBeLessThan(300);
  const [row] = await svc.sql`select id from commissions where partner_id = ${alice} order by id desc limit 1`;
  return row!.id;
}

/** The email the outbox wrote about a commission, by its Message-ID: partners' emails name no ids. */
async function commissionMail(template: string, commissionId: string): Promise<CaughtMail> {
  const [row] = await svc.sql`select id from email_outbox where template = ${template} and data ->> 'commissionId' = ${commissionId}`;
  expect(row).toBeDefined();
  return svc.mail.waitFor('alice@example.com', (m) => m.raw.messageId === `<${row!.id}@127.0.0.1>`);
}

/** Partners read people's words: no commission id, no internal event name. */
function expectNoInternalNames(mail: CaughtMail) {
  for (const part of [mail.text, String(mail.raw.html)]) {
    expect(part).not.toMatch(/com_[0-9a-z]{10,}/);
    expect(part).not.toMatch(/invoice_paid|recruit_override|subscription_created|trial_started/);
  }
}

/** A header as sent (mailparser folds List-* headers into one object; the raw line is what clients read). */
const headerOf = (mail: CaughtMail, name: string) =>
  (mail.raw.headerLines.find((h) => h.key === name)?.line ?? '').replace(/^[^:]+:\s*/, '').replace(/\r?\n\s+/g, ' ');
const unsubscribeLink = (mail: CaughtMail) => headerOf(mail, 'list-unsubscribe').replace(/^<|>$/g, '');

function expectBranded(mail: CaughtMail) {
  // text: the name as written; html: escaped, with the logo, the colour and the support address
  expect(mail.text).toContain('Acme <Partners> & Co');
  expect(mail.text).toContain('help@acme.example');
  const html = String(mail.raw.html);
  expect(html).toContain('Acme &#60;Partners&#62; &#38; Co');
  expect(html).not.toContain('<Partners>');
  expect(html).toContain('src="https://cdn.acme.example/logo.png"');
  expect(html).toContain('#0f766e');
  expect(html).toContain('mailto:help@acme.example');
}

function expectOneClick(mail: CaughtMail, kind: string) {
  const link = unsubscribeLink(mail);
  expect(link).toStartWith(`${svc.url}/unsubscribe?token=`);
  expect(decodeURIComponent(link)).toContain(`${alice}.${kind}.`);
  expect(headerOf(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
  expect(mail.text).toContain(link);
  expect(String(mail.raw.html)).toContain(link.replace(/&/g, '&#38;'));
}

describe('partner emails', () => {
  test('commission accrued: amount, campaign, link to the portal, branding, one-click unsubscribe, stable Message-ID', async () => {
    const commissionId = await sale(5000);
    await svc.deliverEmails();
    const mail = await commissionMail('commission_accrued', commissionId);
    expect(mail.subject).toBe('You earned 10.00 USD');
    expect(mail.text).toContain('Campaign: Spring launch');
    expect(mail.text).toContain('For: Paid invoice');
    expectNoInternalNames(mail);
    expect(mail.text).toContain(`${svc.url}/portal/commissions`);
    expectBranded(mail);
    expectOneClick(mail, 'commissionAccrued');
    const [row] = await svc.sql`select id, status, attempts, sent_at from email_outbox where template = 'commission_accrued' and data ->> 'commissionId' = ${commissionId}`;
    expect(row).toMatchObject({ status: 'sent', attempts: 1 });
    expect(mail.raw.messageId).toBe(`<${row!.id}@127.0.0.1>`);
  });

  test('commission approved', async () => {
    const commissionId = await sale(2500);
    expect((await svc.api('POST', `/v1/commissions/${commissionId}/approve`)).status).toBe(200);
    await svc.deliverEmails();
    const mail = await commissionMail('commission_approved', commissionId);
    expect(mail.subject).toBe('Your commission of 5.00 USD is approved');
    expect(mail.text).toContain('Campaign: Spring launch');
    expect(mail.text).toContain('For: Paid invoice');
    expectNoInternalNames(mail);
    expect(mail.text).toContain('paid in the next payout');
    expectBranded(mail);
    expectOneClick(mail, 'commissionApproved');
  });

  test('payout sent lists the commissions it pays; the admins get the run summary', async () => {
    const approved = await svc.sql<{ id: string; amount: bigint }[]>`select id, amount from commissions where partner_id = ${alice} and status = 'accrued'`;
    for (const c of approved) expect((await svc.api('POST', `/v1/commissions/${c.id}/approve`)).status).toBe(200);
    const run = await svc.api('POST', '/v1/payouts/run');
    expect(run.status).toBe(200);
    const payout = run.body.payouts.find((p: { partnerId: string }) => p.partnerId === alice);
    expect(payout).toBeDefined();
    expect((await svc.api('POST', `/v1/payouts/${payout.id}/mark-paid`, { body: { reference: 'bank-4711' } })).status).toBe(200);
    await svc.deliverEmails();

    const mail = await svc.mail.waitFor('alice@example.com', (m) => m.subject.startsWith('Payout sent'));
    expect(mail.subject).toBe(`Payout sent: ${payout.amount} USD`);
    const paid = await svc.sql<{ id: string; created_at: Date }[]>`select id, created_at from commissions where payout_id = ${payout.id} order by id`;
    expect(paid.length).toBeGreaterThan(1);
    // one line per commission it pays: its date, campaign and what it was for, never its id
    const lines = mail.text.split('\n').filter((l) => /^\d{4}-\d{2}-\d{2}\s+Spring launch\s+Paid invoice\s+\d+\.\d{2}$/.test(l));
    expect(lines).toHaveLength(paid.length);
    expect(mail.text).toMatch(/Date\s+Campaign\s+For\s+Amount \(USD\)/);
    expectNoInternalNames(mail);
    expect(mail.text).toContain('Reference: bank-4711');
    expect(mail.text).toContain(`${svc.url}/portal/payouts`);
    expectBranded(mail);
    expectOneClick(mail, 'payoutSent');

    const summary = await svc.mail.waitFor(ADMIN, (m) => m.subject.startsWith('Payout run'));
    expect(summary.subject).toBe(`Payout run: ${run.body.payouts.length} payouts`);
    expect(summary.text).toContain(`${svc.url}/admin/payouts`);
    expect(headerOf(summary, 'list-unsubscribe')).toBe('');
  });

  test('monthly statement: once per partner and month, whatever runs it twice', async () => {
    const month = new Date().toISOString().slice(0, 7);
    const { enqueueMonthlyStatements } = await import('../../src/mail/statements');
    expect(await enqueueMonthlyStatements(svc.sql, month)).toBeGreaterThanOrEqual(1);
    expect(await enqueueMonthlyStatements(svc.sql, month)).toBe(0);
    await svc.deliverEmails();
    const mail = await svc.mail.waitFor('alice@example.com', (m) => m.subject.startsWith('Your statement'));
    const monthName = new Date(`${month}-01T00:00:00Z`).toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
    expect(mail.subject).toBe(`Your statement for ${monthName}`);
    // a column per currency, a row per movement (fits a phone)
    expect(mail.text).toMatch(/^\s+USD$/m);
    expect(mail.text).toMatch(/^Earned\s+\d+\.\d{2}$/m);
    expect(mail.text).toMatch(/^Reversed\s+\d+\.\d{2}$/m);
    expectOneClick(mail, 'monthlyStatement');
    expect(svc.mail.messages.filter((m) => m.subject === mail.subject && m.to === 'alice@example.com')).toHaveLength(1);
  });
});

describe('emails sent at once carry the branding too', () => {
  test('invite, sign-in link, suspension and reinstatement: the program name, logo and colour; the link alone on its line', async () => {
    const created = await svc.api('POST', '/partners', { body: { email: 'bea@example.com', name: 'Bea' } });
    expect(created.status).toBe(201);
    const invite = await svc.mail.waitFor('bea@example.com', (m) => m.subject.startsWith('You are invited'));
    expect(invite.subject).toBe('You are invited to Acme <Partners> & Co');
    expect(invite.text).toContain('Hi Bea,');
    expect(invite.text).toMatch(/\nhttps?:\/\/\S+\/auth\/magic\?token=\S+\n/);
    expectBranded(invite);
    // no unsubscribe: an invite is not a kind a partner turns off
    expect(headerOf(invite, 'list-unsubscribe')).toBe('');

    expect((await svc.api('POST', '/auth/magic-link', { body: { email: 'bea@example.com' } })).status).toBeLessThan(300);
    const signIn = await svc.mail.waitFor('bea@example.com', (m) => m.subject.startsWith('Your sign-in link'));
    expect(signIn.subject).toBe('Your sign-in link for Acme <Partners> & Co');
    expectBranded(signIn);

    expect((await svc.api('POST', `/partners/${created.body.id}/revoke`, { body: { reason: 'fake <b>traffic</b>' } })).status).toBe(200);
    const revoked = await svc.mail.waitFor('bea@example.com', (m) => m.subject.includes('suspended'));
    expect(revoked.subject).toBe('Your Acme <Partners> & Co account has been suspended');
    expect(revoked.text).toContain('Reason given: fake <b>traffic</b>');
    expect(String(revoked.raw.html)).not.toContain('<b>traffic</b>');
    expectBranded(revoked);

    expect((await svc.api('POST', `/partners/${created.body.id}/reinstate`)).status).toBe(200);
    const back = await svc.mail.waitFor('bea@example.com', (m) => m.subject.includes('reinstated'));
    expect(back.subject).toBe('Your Acme <Partners> & Co account has been reinstated');
    expectBranded(back);
  });
});

describe('the partner decides', () => {
  test('GET /partners/:id shows every switch on by default; the partner turns one off with its own key', async () => {
    const before = await svc.api('GET', `/v1/partners/${alice}`, { key: aliceKey });
    expect(before.body.notifications).toEqual({ commissionAccrued: true, commissionApproved: true, payoutSent: true, monthlyStatement: true });
    const res = await svc.api('PATCH', `/v1/partners/${alice}`, { key: aliceKey, body: { notifications: { commissionAccrued: false } } });
    expect(res.status).toBe(200);
    expect(res.body.notifications).toEqual({ commissionAccrued: false, commissionApproved: true, payoutSent: true, monthlyStatement: true });
  });

  test.each([
    ['another field beside notifications', { name: 'Mallory', notifications: { payoutSent: false } }, 403],
    ['an unknown switch', { notifications: { everything: false } }, 400],
    ['a switch that is not a boolean', { notifications: { payoutSent: 'no' } }, 400],
    ['notifications that are not an object', { notifications: [true] }, 400],
  ])('a partner sending %s is refused and nothing changes', async (_label, body, status) => {
    const res = await svc.api('PATCH', `/v1/partners/${alice}`, { key: aliceKey, body });
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(status === 403 ? 'forbidden' : 'invalid_body');
    const [row] = await svc.sql`select name, notifications from partners where id = ${alice}`;
    expect(row).toEqual({ name: 'alice', notifications: { commissionAccrued: false } });
  });

  test('a kind turned off is not sent; the others still are', async () => {
    const sent = svc.mail.messages.length;
    const commissionId = await sale(1000);
    expect(await svc.sql`select 1 from email_outbox where template = 'commission_accrued' and data ->> 'commissionId' = ${commissionId}`).toHaveLength(0);
    expect((await svc.api('POST', `/v1/commissions/${commissionId}/approve`)).status).toBe(200);
    await svc.deliverEmails();
    await commissionMail('commission_approved', commissionId);
    expect(svc.mail.messages.slice(sent).filter((m) => m.subject.startsWith('You earned'))).toEqual([]);
  });

  test('an email already written when the partner turns its kind off is skipped, not sent', async () => {
    // an approval email waiting in the outbox (due in an hour, written and postponed in one transaction) ...
    const id = await svc.sql.begin(async (tx) => {
      const written = await enqueueEmail(tx, { template: 'commission_approved', to: 'alice@example.com', partnerId: alice, notification: 'commissionApproved', data: { partnerName: 'alice', commissionId: 'com_waiting', amount: '1.00', currency: 'USD' } });
      await tx`update email_outbox set next_attempt_at = now() + interval '1 hour' where id = ${written}`;
      return written;
    });
    // ... and the partner turns approvals off before it goes out
    expect((await svc.api('PATCH', `/v1/partners/${alice}`, { key: aliceKey, body: { notifications: { commissionApproved: false } } })).status).toBe(200);
    await svc.sql`update email_outbox set next_attempt_at = now() where id = ${id}`;
    await svc.deliverEmails();
    expect((await svc.sql`select status from email_outbox where id = ${id}`)[0]!.status).toBe('skipped');
    expect(svc.mail.messages.filter((m) => m.raw.messageId === `<${id}@127.0.0.1>`)).toEqual([]);
    await svc.api('PATCH', `/v1/partners/${alice}`, { body: { notifications: { commissionAccrued: true, commissionApproved: true } } });
  });
});

describe('one-click unsubscribe', () => {
  let link: string;
  beforeAll(async () => {
    const mail = await svc.mail.waitFor('alice@example.com', (m) => m.subject.startsWith('Payout sent'));
    link = unsubscribeLink(mail);
  });

  test('GET shows a confirm page and changes nothing', async () => {
    const res = await fetch(link, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('Unsubscribe');
    expect(page).toContain('emails when a payout is sent');
    expect(page).toContain('alice@example.com');
    expect(page).toContain('Acme &lt;Partners&gt; &amp; Co');
    expect((await svc.api('GET', `/v1/partners/${alice}`)).body.notifications.payoutSent).toBe(true);
  });

  test('a mail client\'s one-click POST turns that kind off, without sign-in', async () => {
    const res = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, unsubscribed: 'payoutSent' });
    expect((await svc.api('GET', `/v1/partners/${alice}`)).body.notifications).toMatchObject({ payoutSent: false, commissionApproved: true });
    // once more is still fine (clients retry)
    expect((await fetch(link, { method: 'POST', body: 'List-Unsubscribe=One-Click' })).status).toBe(200);
  });

  test('the confirm page\'s button answers a page', async () => {
    const monthly = (await svc.mail.waitFor('alice@example.com', (m) => m.subject.startsWith('Your statement')));
    const res = await fetch(unsubscribeLink(monthly), {
      method: 'POST',
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('You are unsubscribed');
    expect((await svc.api('GET', `/v1/partners/${alice}`)).body.notifications.monthlyStatement).toBe(false);
    await svc.api('PATCH', `/v1/partners/${alice}`, { body: { notifications: { payoutSent: true, monthlyStatement: true } } });
  });

  const forged = (token: string) => {
    const [partnerId, kind, sig] = token.split('.');
    return [
      ['another kind, same signature', `${partnerId}.commissionApproved.${sig}`],
      ['another partner, same signature', `ptn_01jd8x0000000000000000000a.${kind}.${sig}`],
      ['a changed signature', `${partnerId}.${kind}.${sig!.slice(0, -2)}AA`],
      ['an unknown kind', `${partnerId}.everything.${sig}`],
      ['no signature', `${partnerId}.${kind}`],
      ['garbage', '%%%'],
      ['nothing', ''],
      ['a very long token', 'x'.repeat(5000)],
    ] as const;
  };

  test('forged and broken tokens: a clear error, nothing changed', async () => {
    const token = new URL(link).searchParams.get('token')!;
    for (const [label, bad] of forged(token)) {
      const url = `${svc.url}/unsubscribe?token=${encodeURIComponent(bad)}`;
      const post = await fetch(url, { method: 'POST', body: 'List-Unsubscribe=One-Click' });
      expect(post.status, label).toBe(400);
      expect((await post.json()).code, label).toBe('invalid_query');
      const page = await fetch(url, { headers: { accept: 'text/html' } });
      expect(page.status, label).toBe(400);
      expect(await page.text(), label).toContain('This unsubscribe link is not valid');
    }
    expect((await fetch(`${svc.url}/unsubscribe`, { method: 'POST' })).status).toBe(400);
    const [row] = await svc.sql`select notifications from partners where id = ${alice}`;
    expect(Object.values(row!.notifications).every((on) => on === true)).toBe(true);
  });
});

describe('admin emails', () => {
  test('a webhook endpoint failing five times in a row: one email per failing streak', async () => {
    const receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('down', { status: 503 }) });
    try {
      const endpoint = await svc.api('POST', '/v1/webhooks', { body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['commission.accrued'] } });
      expect(endpoint.status).toBe(201);
      const endpointId: string = endpoint.body.endpoint.id;
      const failing = async (n: number) => {
        for (let i = 0; i < n; i++) await sale(100);
        await svc.deliverWebhooks();
        await svc.deliverEmails();
      };
      const subject = (m: CaughtMail) => m.subject.startsWith('Webhook endpoint failing');
      await failing(4);
      expect(svc.mail.messages.filter(subject)).toEqual([]);
      await failing(3);
      const mail = await svc.mail.waitFor(ADMIN, subject);
      expect(mail.text).toContain(endpointId);
      expect(mail.text).toContain(`${svc.url}/admin/webhooks/${endpointId}`);
      await failing(6);
      expect(svc.mail.messages.filter(subject)).toHaveLength(1);
    } finally {
      receiver.stop(true);
    }
  }, 60_000);

  test('previews: every template renders its sample in both parts', async () => {
    const { TEMPLATES } = await import('../../src/mail/registry');
    const { composeEmail } = await import('../../src/mail/compose');
    const { loadBrand } = await import('../../src/mail/brand');
    const brand = await loadBrand(svc.sql, svc.url);
    for (const [name, template] of Object.entries(TEMPLATES)) {
      const out = composeEmail(template, template.sample, brand, { address: 'x@example.com', partnerId: 'ptn_01jd8x0000000000000000000a' });
      expect(out.subject, name).not.toBe('');
      expect(out.text, name).toContain(brand.programName);
      expect(out.html, name).toContain('<html');
      expect(Boolean(out.headers['List-Unsubscribe']), name).toBe(template.audience === 'partner' && !!template.notification);
    }
  });
});
