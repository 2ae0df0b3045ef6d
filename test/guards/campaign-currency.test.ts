// A campaign's currency: an unknown code is named as unknown (not as too long), and the currency is
// fixed once the campaign has commissions (409 explaining why), so its history never vanishes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { referredUser } from '../support/chain';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

const base = { name: 'Spring', destinationUrl: 'https://shop.example/landing', currency: 'USD' };

describe('unknown currency', () => {
  test.each(['DOGE', 'XYZ', 'usd', 'EURO'])('%p on create and update is a 400 "unknown currency" on the currency field', async (code) => {
    const created = await svc.api('POST', '/v1/campaigns', { body: { ...base, currency: code } });
    expect(created.status).toBe(400);
    expect(created.body.details).toEqual([{ field: 'currency', message: expect.stringMatching(/^unknown currency/) }]);
    const campaign = (await svc.api('POST', '/v1/campaigns', { body: base })).body;
    const updated = await svc.api('PATCH', `/v1/campaigns/${campaign.id}`, { body: { currency: code } });
    expect(updated.status).toBe(400);
    expect(updated.body.details).toEqual([{ field: 'currency', message: expect.stringMatching(/^unknown currency/) }]);
    const [row] = await svc.sql`select currency from campaigns where id = ${campaign.id}`;
    expect(row!.currency).toBe('USD');
  });
});

describe('currency once the campaign has commissions', () => {
  test('changing it is a 409 naming the field and why; nothing changes; the same currency and other fields still save', async () => {
    const chain = await referredUser(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }], userId: 'cur-user-1' });
    // before any commission the currency may change (and back)
    expect((await svc.api('PATCH', `/v1/campaigns/${chain.campaignId}`, { body: { currency: 'EUR' } })).body.currency).toBe('EUR');
    expect((await svc.api('PATCH', `/v1/campaigns/${chain.campaignId}`, { body: { currency: 'USD' } })).body.currency).toBe('USD');
    const event = await svc.api('POST', '/v1/events', { body: { userId: chain.userId, type: 'invoice_paid', amount: 5000, currency: 'USD' } });
    expect(event.status).toBe(201);
    expect(await svc.sql`select 1 from commissions where campaign_id = ${chain.campaignId}`).toHaveLength(1);

    const refused = await svc.api('PATCH', `/v1/campaigns/${chain.campaignId}`, { body: { currency: 'EUR', name: 'Renamed' } });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('conflict');
    expect(refused.body.details).toEqual([{ field: 'currency', message: expect.stringContaining('cannot change once it has commissions') }]);
    expect(refused.body.message).toContain('1 commission in USD');
    const [row] = await svc.sql`select currency, name from campaigns where id = ${chain.campaignId}`;
    expect(row).toEqual({ currency: 'USD', name: 'Pro plan' });

    // the same currency again is no change
    const same = await svc.api('PATCH', `/v1/campaigns/${chain.campaignId}`, { body: { currency: 'USD', name: 'Renamed' } });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ currency: 'USD', name: 'Renamed' });
  });
});
