// Reviewed applications through the API: partnerSignup = review, POST /auth/signup stores an
// application, admins list, approve (the invite is mailed) or decline (the reason is mailed) it; an
// applied or declined partner cannot sign in.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Partnerd, PartnerdError } from 'partnerd/sdk';
import { outbox, startService, type TestService } from '../support/service';

const ADMIN = 'boss@operator.example';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ ADMIN_EMAILS: ADMIN });
  expect((await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'review' } })).body.partnerSignupEffective).toBe('review');
});
afterAll(() => svc.stop());

/** POST /auth/signup as a browser or script would: no key. */
const signup = (body: unknown) => svc.api('POST', '/auth/signup', { key: null, body });

const ANSWERS = {
  website: 'https://ann.example/blog',
  audience: 'Indie developers, about 4,000 newsletter readers',
  promotion: 'A review post and a monthly newsletter mention',
};

async function apply(email: string, name = 'Applicant', answers: unknown = ANSWERS): Promise<string> {
  const res = await signup({ email, name, applicationAnswers: answers });
  expect(res.status).toBe(202);
  const [row] = await svc.sql`select id from partners where email = ${email}`;
  return row!.id as string;
}

const partnerRow = async (id: string) =>
  (await svc.sql`select activated_at, applied_at, approved_at, declined_at, decline_reason, application_answers from partners where id = ${id}`)[0]!;

describe('signing up under review', () => {
  test('stores an application: 202, status applied, answers kept, no invite, partner.created with invited false', async () => {
    const res = await signup({ email: 'Ann@Example.com', name: 'Ann Archer', applicationAnswers: ANSWERS });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ ok: true, message: 'Thank you for applying. We will email you once your application has been reviewed.' });

    const [row] = await svc.sql`select id from partners where email = 'ann@example.com'`;
    const id = row!.id as string;
    const partner = await svc.api('GET', `/v1/partners/${id}`);
    expect(partner.body).toMatchObject({ status: 'applied', activatedAt: null, revokedAt: null, applicationAnswers: ANSWERS, declineReason: null });
    expect(partner.body.appliedAt).toBe(partner.body.createdAt);

    const created = (await outbox(svc.sql, 'partner.created')).find((e) => e.data.partnerId === id);
    expect(created?.data).toMatchObject({ email: 'ann@example.com', name: 'Ann Archer', invited: false, activatedAt: null });

    // the admins hear of it; the applicant gets no link
    const note = await svc.mail.waitFor(ADMIN, (m) => m.text.includes('ann@example.com'));
    expect(note.subject).toBe('New partner application: Ann Archer');
    expect(note.text).toContain(`${svc.url}/admin/partners/${id}`);
    expect(svc.mail.messages.filter((m) => m.to === 'ann@example.com')).toEqual([]);
    expect((await svc.sql`select count(*)::int as n from magic_links where partner_id = ${id}`)[0]!.n).toBe(0);
  });

  test('answers are optional: none stored as null', async () => {
    const res = await signup({ email: 'quiet@example.com', name: 'Quiet' });
    expect(res.status).toBe(202);
    const [row] = await svc.sql`select id, application_answers from partners where email = 'quiet@example.com'`;
    expect(row!.application_answers).toBeNull();
    expect((await svc.api('GET', `/v1/partners/${row!.id}`)).body).toMatchObject({ status: 'applied', applicationAnswers: null });
  });

  test('an email that already applied gets the same answer and no second application', async () => {
    await apply('twice@example.com', 'Twice');
    const again = await signup({ email: 'twice@example.com', name: 'Other name', applicationAnswers: { audience: 'changed' } });
    expect(again.status).toBe(202);
    expect(again.body.message).toContain('Thank you for applying');
    const rows = await svc.sql`select name, application_answers from partners where email = 'twice@example.com'`;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: 'Twice', application_answers: ANSWERS });
  });

  test.each([
    ['website not a URL', { website: 'ann.example' }, 'applicationAnswers.website'],
    ['website ftp', { website: 'ftp://ann.example/files' }, 'applicationAnswers.website'],
    ['website with a space', { website: 'https://ann example.com' }, 'applicationAnswers.website'],
    ['website too long', { website: `https://ann.example/${'a'.repeat(500)}` }, 'applicationAnswers.website'],
    ['audience too long', { audience: 'a'.repeat(1001) }, 'applicationAnswers.audience'],
    ['audience blank', { audience: '   ' }, 'applicationAnswers.audience'],
    ['promotion too long', { promotion: 'p'.repeat(2001) }, 'applicationAnswers.promotion'],
    ['promotion a number', { promotion: 12 }, 'applicationAnswers.promotion'],
    ['an unknown question', { age: '30' }, 'applicationAnswers.age'],
    ['answers not an object', 'I have a blog', 'applicationAnswers'],
  ])('%s: 400 naming the field, nothing stored', async (_label, answers, field) => {
    const email = `bad-${field.replace(/\W/g, '')}-${Math.random().toString(36).slice(2)}@example.com`;
    const res = await signup({ email, name: 'Bad', applicationAnswers: answers });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await svc.sql`select id from partners where email = ${email}`).toHaveLength(0);
  });

  test('under open, the answers are stored too and the partner is invited at once', async () => {
    await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'open' } });
    try {
      const res = await signup({ email: 'opener@example.com', name: 'Opener', applicationAnswers: { website: 'https://opener.example' } });
      expect(res.status).toBe(202);
      expect(res.body.message).toBe('Check your inbox for a link to activate your account.');
      const [row] = await svc.sql`select id from partners where email = 'opener@example.com'`;
      expect((await svc.api('GET', `/v1/partners/${row!.id}`)).body).toMatchObject({ status: 'pending', appliedAt: null, applicationAnswers: { website: 'https://opener.example' } });
      await svc.mail.magicLink('opener@example.com');
    } finally {
      await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'review' } });
    }
  });
});

describe('the applications queue', () => {
  test('GET /partners?status=applied lists only applications; each one\'s record has its answers', async () => {
    const id = await apply('listed@example.com', 'Listed');
    const admin = await svc.api('POST', '/v1/partners', { body: { email: 'made@example.com', name: 'Made', sendInvite: false } });
    const res = await svc.api('GET', '/v1/partners?status=applied&limit=200');
    expect(res.status).toBe(200);
    const ids: string[] = res.body.partners.map((p: { id: string }) => p.id);
    expect(ids).toContain(id);
    expect(ids).not.toContain(admin.body.id);
    // list items keep SPEC's fields; the record says the rest
    expect(res.body.partners.find((p: { id: string }) => p.id === id)).toMatchObject({ email: 'listed@example.com', activatedAt: null, revokedAt: null });
    for (const each of ids) expect((await svc.api('GET', `/v1/partners/${each}`)).body.status).toBe('applied');
    expect((await svc.api('GET', `/v1/partners/${id}`)).body.applicationAnswers).toEqual(ANSWERS);
    // the other statuses filter as they read
    const active = await svc.api('GET', '/partners?status=active&limit=200');
    expect(active.body.partners.map((p: { id: string }) => p.id)).toContain(admin.body.id);
    expect(active.body.partners.map((p: { id: string }) => p.id)).not.toContain(id);
  });

  test('an unknown status is a 400', async () => {
    const res = await svc.api('GET', '/v1/partners?status=waiting');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_query');
  });
});

describe('approving', () => {
  test('approve: status pending, the invite is mailed, using it activates the partner', async () => {
    const id = await apply('bea@example.com', 'Bea');
    const res = await svc.api('POST', `/v1/partners/${id}/approve`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'pending', activatedAt: null, applicationAnswers: ANSWERS });
    expect((await partnerRow(id)).approved_at).not.toBeNull();

    const link = await svc.mail.magicLink('bea@example.com');
    const invite = svc.mail.messages.findLast((m) => m.to === 'bea@example.com')!;
    expect(invite.text).toContain('Hi Bea');
    const open = await fetch(link, { redirect: 'manual' });
    expect(open.status).toBe(302);
    expect(open.headers.get('location')).toBe('/portal');
    expect((await svc.api('GET', `/partners/${id}`)).body.status).toBe('active');
    expect((await outbox(svc.sql, 'partner.activated')).map((e) => e.data.partnerId)).toContain(id);
    // approving is not a second partner.created
    expect((await outbox(svc.sql, 'partner.created')).filter((e) => e.data.partnerId === id)).toHaveLength(1);
  });

  test('a partners:write key may approve; partners:read, partner keys and no key may not', async () => {
    const id = await apply('scoped@example.com', 'Scoped');
    const other = (await svc.api('POST', '/v1/partners', { body: { email: 'insider@example.com', name: 'Insider', sendInvite: false } })).body.id;
    const refusals: [string, string | null, number][] = [
      ['no key', null, 401],
      ['partners:read', await svc.scopedKey(['partners:read']), 403],
      ['a partner key', await svc.partnerKey(other), 403],
    ];
    for (const [label, key, status] of refusals) {
      for (const path of [`/v1/partners/${id}/approve`, `/v1/partners/${id}/decline`]) {
        const res = await svc.api('POST', path, { key, body: { reason: 'nope' } });
        expect({ label, path, status: res.status }).toEqual({ label, path, status });
      }
    }
    expect((await partnerRow(id)).approved_at).toBeNull();
    expect((await partnerRow(id)).declined_at).toBeNull();
    const writer = await svc.scopedKey(['partners:write']);
    expect((await svc.api('POST', `/partners/${id}/approve`, { key: writer })).status).toBe(200);
  });

  test.each([
    ['an active partner', 'active', 'already active'],
    ['an invited partner', 'pending', 'already approved'],
    ['an approved application', 'approved', 'already approved'],
    ['a declined application', 'declined', 'already declined'],
    ['a revoked application', 'revoked', 'revoked'],
  ])('approving %s is a 409 that says why, nothing changes', async (_label, state, words) => {
    const email = `approve-${state}@example.com`;
    let id: string;
    if (state === 'active' || state === 'pending') {
      id = (await svc.api('POST', '/v1/partners', { body: { email, name: 'Someone', sendInvite: state === 'pending' } })).body.id;
    } else {
      id = await apply(email, 'Someone');
      if (state === 'approved') await svc.api('POST', `/v1/partners/${id}/approve`);
      if (state === 'declined') await svc.api('POST', `/v1/partners/${id}/decline`, { body: { reason: 'Not a fit' } });
      if (state === 'revoked') await svc.api('POST', `/v1/partners/${id}/revoke`, { body: { reason: 'spam' } });
    }
    const before = await partnerRow(id);
    const links = (await svc.sql`select count(*)::int as n from magic_links where partner_id = ${id}`)[0]!.n;
    const res = await svc.api('POST', `/v1/partners/${id}/approve`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    expect(res.body.message).toContain(words);
    expect(await partnerRow(id)).toEqual(before);
    expect((await svc.sql`select count(*)::int as n from magic_links where partner_id = ${id}`)[0]!.n).toBe(links);
  });

  test('approve and decline at once: exactly one wins, the other is a 409, one email goes out', async () => {
    const id = await apply('race@example.com', 'Race');
    const answers = await Promise.all([
      svc.api('POST', `/v1/partners/${id}/approve`),
      svc.api('POST', `/v1/partners/${id}/decline`, { body: { reason: 'Too late' } }),
      svc.api('POST', `/v1/partners/${id}/approve`),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409, 409]);
    const winner = answers.find((a) => a.status === 200)!.body.status as string;
    const row = await partnerRow(id);
    expect(winner === 'pending' ? row.approved_at !== null && row.declined_at === null : row.declined_at !== null && row.approved_at === null).toBe(true);
    await svc.mail.waitFor('race@example.com');
    // a second email would be as quick as the first; give it the time of an admin's sign-in link
    const before = svc.mail.messages.filter((m) => m.to === ADMIN).length;
    await svc.api('POST', '/auth/magic-link', { key: null, body: { email: ADMIN } });
    await svc.mail.waitFor(ADMIN, () => svc.mail.messages.filter((m) => m.to === ADMIN).length > before);
    expect(svc.mail.messages.filter((m) => m.to === 'race@example.com')).toHaveLength(1);
  });

  test('an unknown partner is a 404', async () => {
    expect((await svc.api('POST', '/v1/partners/ptn_nobody/approve')).status).toBe(404);
    expect((await svc.api('POST', '/v1/partners/ptn_nobody/decline', { body: { reason: 'x' } })).status).toBe(404);
  });

  test('the invite cannot be sent around the review: POST /invite on an application is a 409', async () => {
    const id = await apply('sneaky@example.com', 'Sneaky');
    const res = await svc.api('POST', `/v1/partners/${id}/invite`);
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('approve the application');
    expect((await svc.sql`select count(*)::int as n from magic_links where partner_id = ${id}`)[0]!.n).toBe(0);
  });
});

describe('declining', () => {
  test('decline: status declined, the reason is kept and mailed', async () => {
    const id = await apply('cal@example.com', 'Cal');
    const res = await svc.api('POST', `/v1/partners/${id}/decline`, { body: { reason: '  Coupon sites are not part of this program.  ' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'declined', declineReason: 'Coupon sites are not part of this program.' });
    const mail = await svc.mail.waitFor('cal@example.com');
    expect(mail.text).toContain('Hi Cal');
    expect(mail.text).toContain('Coupon sites are not part of this program.');
    expect(mail.text).not.toMatch(/auth\/magic/);
    expect((await svc.api('GET', '/v1/partners?status=declined')).body.partners.map((p: { id: string }) => p.id)).toContain(id);
    expect((await svc.api('GET', '/v1/partners?status=applied&limit=200')).body.partners.map((p: { id: string }) => p.id)).not.toContain(id);
  });

  test('declining twice is a 409; the first reason stays and only one email went out', async () => {
    const id = await apply('dee@example.com', 'Dee');
    expect((await svc.api('POST', `/v1/partners/${id}/decline`, { body: { reason: 'First' } })).status).toBe(200);
    await svc.mail.waitFor('dee@example.com');
    const again = await svc.api('POST', `/v1/partners/${id}/decline`, { body: { reason: 'Second' } });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('already declined');
    expect((await partnerRow(id)).decline_reason).toBe('First');
    expect(svc.mail.messages.filter((m) => m.to === 'dee@example.com')).toHaveLength(1);
  });

  test('declining an active partner is a 409', async () => {
    const id = (await svc.api('POST', '/v1/partners', { body: { email: 'live@example.com', name: 'Live', sendInvite: false } })).body.id;
    const res = await svc.api('POST', `/v1/partners/${id}/decline`, { body: { reason: 'x' } });
    expect(res.status).toBe(409);
    expect((await svc.api('GET', `/v1/partners/${id}`)).body.status).toBe('active');
  });

  test.each([
    ['no body', undefined],
    ['no reason', {}],
    ['an empty reason', { reason: '' }],
    ['a blank reason', { reason: '   ' }],
    ['a reason too long', { reason: 'r'.repeat(1001) }],
    ['a reason not a string', { reason: 42 }],
  ])('%s: 400, the application still waits', async (_label, body) => {
    const id = await apply(`reasonless-${Math.random().toString(36).slice(2)}@example.com`, 'Reasonless');
    const res = await svc.api('POST', `/v1/partners/${id}/decline`, { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect((await svc.api('GET', `/v1/partners/${id}`)).body.status).toBe('applied');
  });
});

describe('signing in before approval', () => {
  const askForLink = (email: string) => svc.api('POST', '/auth/magic-link', { key: null, body: { email } });

  test('applied and declined partners get the stranger answer and no link', async () => {
    const applied = await apply('wait@example.com', 'Wait');
    const declined = await apply('no@example.com', 'No');
    await svc.api('POST', `/v1/partners/${declined}/decline`, { body: { reason: 'Not now' } });
    await svc.mail.waitFor('no@example.com');
    const stranger = await askForLink('stranger@example.com');
    for (const email of ['wait@example.com', 'no@example.com']) {
      const res = await askForLink(email);
      expect(res.status).toBe(stranger.status);
      expect(res.body).toEqual(stranger.body);
    }
    // signing up again under an existing application says the same as a new one
    const again = await signup({ email: 'wait@example.com', name: 'Wait' });
    expect(again.body.message).toContain('Thank you for applying');
    const mailsToThem = () => svc.mail.messages.filter((m) => m.to === 'wait@example.com' || m.to === 'no@example.com').length;
    // give any mail that might have been sent the time a sent one takes, then count
    await askForLink('admin-marker@example.com');
    await svc.mail.waitFor(ADMIN, (m) => m.text.includes('wait@example.com'));
    expect(mailsToThem()).toBe(1); // the decline notice only
    expect((await svc.sql`select count(*)::int as n from magic_links where partner_id = any(${[applied, declined]})`)[0]!.n).toBe(0);
  });

  test('a link for an application, however it came about, does not sign in or activate', async () => {
    // no route issues one; written directly, to prove that using a link checks the status too
    const id = await apply('forced@example.com', 'Forced');
    const { issueMagicLink, magicLinkUrl } = await import('../../src/modules/auth/magic');
    const link = await issueMagicLink(svc.sql, { purpose: 'signin', email: 'forced@example.com', partnerId: id });
    const res = await fetch(magicLinkUrl(svc.url, link.token), { redirect: 'manual' });
    expect(res.status).toBe(400);
    // no session: the page's only cookie is the CSRF token of its "send me a new link" form
    expect(res.headers.get('set-cookie') ?? '').not.toContain('partnerd_session');
    expect((await partnerRow(id)).activated_at).toBeNull();
    expect((await svc.api('GET', `/v1/partners/${id}`)).body.status).toBe('applied');
  });

  test('no share link can be made for an application or a declined partner', async () => {
    const campaign = await svc.api('POST', '/v1/campaigns', { body: { name: 'Links', destinationUrl: 'https://shop.example/', currency: 'USD', rules: [] } });
    expect(campaign.status).toBe(201);
    const waiting = await apply('linkless@example.com', 'Linkless');
    const declined = await apply('declined-links@example.com', 'Declined');
    expect((await svc.api('POST', `/v1/partners/${declined}/decline`, { body: { reason: 'Not a fit' } })).status).toBe(200);
    for (const [id, message] of [
      [waiting, /waiting for review/],
      [declined, /declined/],
    ] as const) {
      const res = await svc.api('POST', '/v1/links', { body: { partnerId: id, campaignId: campaign.body.id } });
      expect(res.status).toBe(409);
      expect(res.body.message).toMatch(message);
      expect(await svc.sql`select id from links where partner_id = ${id}`).toHaveLength(0);
    }
  });

  test('no API key can be made for an application', async () => {
    const id = await apply('keyless@example.com', 'Keyless');
    const res = await svc.api('POST', `/v1/partners/${id}/api-keys`, { body: { name: 'k' } });
    expect(res.status).toBe(409);
    expect(await svc.sql`select id from api_keys where partner_id = ${id}`).toHaveLength(0);
  });
});

describe('the server SDK', () => {
  test('lists applications, approves one, declines another; a wrong state is a PartnerdError 409', async () => {
    const client = new Partnerd({ baseUrl: svc.url, apiKey: svc.adminKey });
    const yes = await apply('sdk-yes@example.com', 'Sdk Yes');
    const no = await apply('sdk-no@example.com', 'Sdk No');
    const queue = await client.partners.list({ status: 'applied', limit: '200' });
    expect(queue.partners.map((p) => p.id)).toEqual(expect.arrayContaining([yes, no]));
    expect((await client.partners.approve(yes)).status).toBe('pending');
    expect((await client.partners.decline(no, { reason: 'Audience too small for now' })).declineReason).toBe('Audience too small for now');
    const error = await client.partners.approve(no).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerdError);
    expect((error as PartnerdError).status).toBe(409);
  });
});

describe('settings', () => {
  test('PARTNER_SIGNUP=review applies when the setting is null', async () => {
    const fresh = await startService({ PARTNER_SIGNUP: 'review' });
    try {
      expect((await fresh.api('GET', '/v1/settings')).body).toMatchObject({ partnerSignup: null, partnerSignupEffective: 'review' });
      const res = await fresh.api('POST', '/auth/signup', { key: null, body: { email: 'env@example.com', name: 'Env' } });
      expect(res.status).toBe(202);
      const [row] = await fresh.sql`select applied_at from partners where email = 'env@example.com'`;
      expect(row!.applied_at).not.toBeNull();
    } finally {
      await fresh.stop();
    }
  });
});
