// Every lifecycle and payout route against every kind of caller: no key, unknown key, publishable key,
// scoped key without and with the scope, partner key (own and other partner's data), admin key.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Scope } from '../../src/modules/auth/scopes';
import { startService, type TestService } from '../support/service';
import { commissionRow, insertCampaign, insertCommission, insertPartner } from '../support/lifecycle-fixtures';

let svc: TestService;
let campaignId: string;
let owner: string;
let other: string;
let ownerKey: string;
let otherKey: string;
let publishable: string;

beforeAll(async () => {
  svc = await startService();
  campaignId = await insertCampaign(svc.sql);
  owner = await insertPartner(svc.sql);
  other = await insertPartner(svc.sql);
  ownerKey = await svc.partnerKey(owner);
  otherKey = await svc.partnerKey(other);
  publishable = await svc.publishableKey();
}, 60_000);
afterAll(() => svc.stop());

type Target = { path: string; body?: unknown; changed: () => Promise<boolean> };

async function pendingPayout(): Promise<string> {
  await insertCommission(svc.sql, { partnerId: owner, campaignId, amount: 100, status: 'approved' });
  const res = await svc.api('POST', '/v1/payouts/run');
  return res.body.payouts.find((p: any) => p.partnerId === owner).id;
}

const payoutStatus = async (id: string) => (await svc.sql`select status from payouts where id = ${id}`)[0]!.status;
const payoutCount = async () => (await svc.sql`select count(*)::int as n from payouts`)[0]!.n as number;

type Route = {
  name: string;
  method: 'GET' | 'POST';
  scope: Scope;
  /** Partner keys may read their own partner's data here. */
  partnerReads: boolean;
  target(): Promise<Target>;
};

const routes: Route[] = [
  {
    name: 'approve',
    method: 'POST',
    scope: 'commissions:write',
    partnerReads: false,
    async target() {
      const id = await insertCommission(svc.sql, { partnerId: owner, campaignId, amount: 100, status: 'accrued' });
      return { path: `/v1/commissions/${id}/approve`, changed: async () => (await commissionRow(svc.sql, id)).status !== 'accrued' };
    },
  },
  {
    name: 'reverse',
    method: 'POST',
    scope: 'commissions:write',
    partnerReads: false,
    async target() {
      const id = await insertCommission(svc.sql, { partnerId: owner, campaignId, amount: 100, status: 'approved' });
      return {
        path: `/v1/commissions/${id}/reverse`,
        body: { reason: 'fraud' },
        changed: async () => (await commissionRow(svc.sql, id)).status !== 'approved',
      };
    },
  },
  {
    name: 'run',
    method: 'POST',
    scope: 'payouts:write',
    partnerReads: false,
    async target() {
      await insertCommission(svc.sql, { partnerId: owner, campaignId, amount: 100, status: 'approved' });
      const before = await payoutCount();
      return { path: '/v1/payouts/run', changed: async () => (await payoutCount()) !== before };
    },
  },
  {
    name: 'mark-paid',
    method: 'POST',
    scope: 'payouts:write',
    partnerReads: false,
    async target() {
      const id = await pendingPayout();
      return { path: `/v1/payouts/${id}/mark-paid`, changed: async () => (await payoutStatus(id)) !== 'pending' };
    },
  },
  {
    name: 'mark-failed',
    method: 'POST',
    scope: 'payouts:write',
    partnerReads: false,
    async target() {
      const id = await pendingPayout();
      return { path: `/v1/payouts/${id}/mark-failed`, body: { reason: 'bounced' }, changed: async () => (await payoutStatus(id)) !== 'pending' };
    },
  },
  {
    name: 'list',
    method: 'GET',
    scope: 'payouts:read',
    partnerReads: true,
    async target() {
      return { path: `/v1/payouts?partnerId=${owner}`, changed: async () => false };
    },
  },
  {
    name: 'detail',
    method: 'GET',
    scope: 'payouts:read',
    partnerReads: true,
    async target() {
      return { path: `/v1/payouts/${await pendingPayout()}`, changed: async () => false };
    },
  },
  {
    name: 'csv',
    method: 'GET',
    scope: 'payouts:read',
    partnerReads: true,
    async target() {
      return { path: `/v1/payouts.csv?partnerId=${owner}`, changed: async () => false };
    },
  },
];

const otherScope = (scope: Scope): Scope => (scope.startsWith('payouts') ? 'commissions:write' : 'payouts:write');

describe('security matrix', () => {
  for (const route of routes) {
    test(route.name, async () => {
      const callers: { who: string; key: () => Promise<string | null>; status: number }[] = [
        { who: 'no key', key: async () => null, status: 401 },
        { who: 'unknown key', key: async () => 'sk_doesnotexist000000000000000000000000000', status: 401 },
        { who: 'malformed header', key: async () => 'two words', status: 401 },
        { who: 'publishable key', key: async () => publishable, status: 403 },
        { who: 'scoped key without the scope', key: () => svc.scopedKey([otherScope(route.scope), 'partners:read']), status: 403 },
        { who: 'scoped key with the scope', key: () => svc.scopedKey([route.scope]), status: 200 },
        { who: 'partner key, own data', key: async () => ownerKey, status: route.partnerReads ? 200 : 403 },
        { who: 'partner key, another partner', key: async () => otherKey, status: 403 },
        { who: 'admin key', key: async () => svc.adminKey, status: 200 },
      ];
      for (const caller of callers) {
        const target = await route.target();
        const key = await caller.key();
        const headers: Record<string, string> = key === 'two words' ? { authorization: 'Bearer two words' } : {};
        const res = await svc.api(route.method, target.path, {
          key: key === 'two words' ? null : key,
          headers,
          body: target.body,
        });
        expect({ who: caller.who, status: res.status }).toEqual({ who: caller.who, status: caller.status });
        if (caller.status >= 400) {
          expect({ who: caller.who, code: res.body.code }).toEqual({
            who: caller.who,
            code: caller.status === 401 ? 'unauthorized' : 'forbidden',
          });
          expect({ who: caller.who, changed: await target.changed() }).toEqual({ who: caller.who, changed: false });
        } else if (route.method === 'POST') {
          expect({ who: caller.who, changed: await target.changed() }).toEqual({ who: caller.who, changed: true });
        }
      }
    });
  }
});
