// The contract files are generated from the route schemas and committed: docs/openapi.json (linted
// in CI) and the SDK's types. Both must match what the code generates today, and a running service
// must serve that same document.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { DOCUMENT_PATH, documentText, fullDocument, SDK_TYPES_PATH, sdkTypesText } from '../../scripts/openapi';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ STRIPE_WEBHOOK_SECRET: 'whsec_contract', PADDLE_WEBHOOK_SECRET: 'pdl_ntfset_contract', LEMONSQUEEZY_WEBHOOK_SECRET: 'lsq_contract' });
}, 60_000);
afterAll(() => svc.stop());

const STALE = 'stale: run `bun run openapi` and commit the result';

describe('the committed contract is the generated one', () => {
  test('docs/openapi.json', () => {
    expect(readFileSync(DOCUMENT_PATH, 'utf8'), STALE).toBe(documentText());
  });

  test('src/sdk/openapi.d.ts', async () => {
    expect(readFileSync(SDK_TYPES_PATH, 'utf8'), STALE).toBe(await sdkTypesText());
  }, 30_000);

  test('a running service serves that document', async () => {
    const served = await svc.api('GET', '/openapi.json', { key: null });
    expect(served.status).toBe(200);
    expect(served.body).toEqual(JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')));
  });
});

describe('what the document says', () => {
  const doc = fullDocument();
  const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op: op as Record<string, any> })));

  test('every operation documents its answers, errors in the one error shape', () => {
    const undocumented = operations.filter(({ op }) => Object.keys(op.responses ?? {}).length === 0).map(({ method, path }) => `${method} ${path}`);
    expect(undocumented).toEqual([]);
    for (const { op } of operations) {
      for (const [status, answer] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        expect(answer.content['application/json'].schema.required).toEqual(['code', 'message']);
      }
    }
  });

  test('every operation says who may call it; routes with a rule name their scheme', () => {
    for (const { op, method, path } of operations) {
      expect({ route: `${method} ${path}`, security: Array.isArray(op.security) }).toEqual({ route: `${method} ${path}`, security: true });
    }
    const create = doc.paths['/v1/partners']!.post as any;
    expect(create.security).toEqual([{ adminKey: [] }, { scopedKey: ['partners:write'] }, { session: [] }]);
    const get = doc.paths['/v1/partners/{id}']!.get as any;
    expect(get.security).toContainEqual({ partnerKey: [] });
    expect((doc.paths['/auth/magic-link']!.post as any).security).toEqual([]);
  });

  test('the webhooks section has every event with the delivery headers', () => {
    const webhooks = (doc as any).webhooks as Record<string, any>;
    expect(Object.keys(webhooks).sort()).toEqual(
      ['attribution.created', 'commission.accrued', 'commission.approved', 'commission.paid', 'commission.reversed', 'partner.activated', 'partner.created', 'partnership.approved', 'payout.created', 'payout.paid', 'payout.failed', 'webhook.test'].sort(),
    );
    const accrued = webhooks['commission.accrued'].post;
    expect(accrued.parameters.map((p: { name: string }) => p.name)).toEqual([
      'x-service-event',
      'x-service-delivery',
      'x-service-timestamp',
      'x-service-signature',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    const data = accrued.requestBody.content['application/json'].schema.properties.data;
    expect(data.required).toEqual(expect.arrayContaining(['commissionId', 'partnerId', 'attributionId', 'campaignId', 'amount', 'currency', 'eventType', 'eventValue']));
  });

  test('no OpenAPI 3.0 leftovers: null is a type, not `nullable`', () => {
    expect(JSON.stringify(doc)).not.toContain('"nullable"');
  });
});
