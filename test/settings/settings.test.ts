import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ PARTNER_SIGNUP: 'closed' });
}, 60_000);
afterAll(() => svc.stop());

describe('settings', () => {
  test('defaults: last_click, 30 days, signup following PARTNER_SIGNUP', async () => {
    const res = await svc.api('GET', '/v1/settings');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      attributionModel: 'last_click',
      attributionWindowDays: 30,
      partnerSignup: null,
      partnerSignupEffective: 'closed',
    });
    expect((await svc.api('GET', '/settings')).body).toEqual(res.body);
  });

  test('PATCH changes only the fields given and the row', async () => {
    const res = await svc.api('PATCH', '/v1/settings', { body: { attributionWindowDays: 90 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ attributionModel: 'last_click', attributionWindowDays: 90, partnerSignup: null });
    const model = await svc.api('PATCH', '/v1/settings', { body: { attributionModel: 'position' } });
    expect(model.body).toMatchObject({ attributionModel: 'position', attributionWindowDays: 90 });
    const [row] = await svc.sql`select attribution_model, attribution_window_days, partner_signup from settings`;
    expect(row).toEqual({ attribution_model: 'position', attribution_window_days: 90, partner_signup: null });
    await svc.api('PATCH', '/v1/settings', { body: { attributionModel: 'last_click', attributionWindowDays: 30 } });
  });

  test('partnerSignup opens and closes self-signup; null goes back to PARTNER_SIGNUP', async () => {
    const signup = (email: string) =>
      fetch(`${svc.url}/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, name: 'Self' }),
      });
    expect((await signup('closed@example.com')).status).toBe(403);
    const open = await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: 'open' } });
    expect(open.body).toMatchObject({ partnerSignup: 'open', partnerSignupEffective: 'open' });
    expect((await signup('open@example.com')).status).toBeLessThan(300);
    const [partner] = await svc.sql`select email from partners where email = 'open@example.com'`;
    expect(partner).toBeDefined();
    const reset = await svc.api('PATCH', '/v1/settings', { body: { partnerSignup: null } });
    expect(reset.body).toMatchObject({ partnerSignup: null, partnerSignupEffective: 'closed' });
    expect((await signup('closed-again@example.com')).status).toBe(403);
  });

  test.each([
    [{ attributionModel: 'first_click' }, 'attributionModel', 'must be one of "last_click", "linear", "position"'],
    [{ attributionWindowDays: 0 }, 'attributionWindowDays', 'must be an integer from 1 to 3650'],
    [{ attributionWindowDays: 3651 }, 'attributionWindowDays', 'must be an integer from 1 to 3650'],
    [{ attributionWindowDays: 7.5 }, 'attributionWindowDays', 'must be an integer from 1 to 3650'],
    [{ attributionWindowDays: 'soon' }, 'attributionWindowDays', 'must be an integer from 1 to 3650'],
    [{ partnerSignup: 'maybe' }, 'partnerSignup', 'must be one of "open", "closed", "review", null'],
  ])('%j is a 400 that says what is allowed', async (body, field, message) => {
    const before = await svc.api('GET', '/v1/settings');
    const res = await svc.api('PATCH', '/v1/settings', { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(res.body.details).toContainEqual({ field, message });
    expect((await svc.api('GET', '/v1/settings')).body).toEqual(before.body);
  });

  test('only the admin key may read or change settings', async () => {
    const partner = await svc.api('POST', '/v1/partners', { body: { email: 'p@example.com', name: 'P', sendInvite: false } });
    const keys = {
      none: null,
      wrong: 'sk_admin_wrong000000000000000000000000000000000',
      publishable: await svc.publishableKey(),
      scoped: await svc.scopedKey(['partners:read', 'partners:write', 'campaigns:read', 'campaigns:write', 'events:write']),
      partner: await svc.partnerKey(partner.body.id),
    };
    const expected = { none: 401, wrong: 401, publishable: 403, scoped: 403, partner: 403 };
    for (const [name, key] of Object.entries(keys)) {
      const get = await svc.api('GET', '/v1/settings', { key });
      const patch = await svc.api('PATCH', '/v1/settings', { key, body: { attributionWindowDays: 5 } });
      expect([name, get.status, patch.status]).toEqual([name, expected[name as keyof typeof expected], expected[name as keyof typeof expected]]);
    }
    expect((await svc.api('GET', '/v1/settings')).body.attributionWindowDays).toBe(30);
  });
});
