import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { outbox, startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

describe('creating partners', () => {
  test('an invited partner is pending, gets the email, and partner.created is enqueued', async () => {
    const res = await svc.api('POST', '/partners', { body: { email: 'Ann.Lee@Example.COM', name: 'Ann Lee' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: 'ann.lee@example.com', name: 'Ann Lee', activatedAt: null, invited: true });
    expect(res.body.id).toMatch(/^ptn_[0-9a-z]{26}$/);
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);

    const mail = await svc.mail.waitFor('ann.lee@example.com');
    expect(mail.text).toContain(`${svc.url}/auth/magic?token=`);

    const [row] = await svc.sql`select email, activated_at from partners where id = ${res.body.id}`;
    expect(row).toEqual({ email: 'ann.lee@example.com', activated_at: null });

    const events = await outbox(svc.sql, 'partner.created');
    expect(events.at(-1)!.data).toEqual({
      partnerId: res.body.id,
      email: 'ann.lee@example.com',
      name: 'Ann Lee',
      activatedAt: null,
      invited: true,
      campaignIds: [],
    });
  });
});
