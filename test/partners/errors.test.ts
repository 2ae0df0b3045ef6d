// Bad input always gets a clear JSON error and changes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

const count = async () => (await svc.sql`select count(*)::int as n from partners`)[0]!.n as number;

describe('invalid partner bodies are 400 invalid_body naming the fields', () => {
  const cases: [string, unknown, string[]][] = [
    ['missing everything', {}, ['email', 'name']],
    ['not an email', { email: 'not-an-email', name: 'X' }, ['email']],
    ['name of the wrong type', { email: 'a@example.com', name: 42 }, ['name']],
    ['empty name', { email: 'a@example.com', name: '' }, ['name']],
    ['blank name', { email: 'a@example.com', name: '   ' }, ['name']],
    ['over-long name', { email: 'a@example.com', name: 'x'.repeat(201) }, ['name']],
    ['over-long email', { email: `${'a'.repeat(250)}@example.com`, name: 'X' }, ['email']],
    ['sendInvite not boolean', { email: 'a@example.com', name: 'X', sendInvite: 'yes' }, ['sendInvite']],
    ['unknown grant source', { email: 'a@example.com', name: 'X', campaignGrantSource: 'friend' }, ['campaignGrantSource']],
    ['metadata not an object', { email: 'a@example.com', name: 'X', metadata: [1, 2] }, ['metadata']],
    ['campaignIds not strings', { email: 'a@example.com', name: 'X', campaignIds: [1] }, ['campaignIds.0']],
    [
      'snapshot rule with a bad kind',
      { email: 'a@example.com', name: 'X', commissionSnapshot: { rules: [{ eventType: 'signup', kind: 'bonus' }] } },
      ['commissionSnapshot.rules.0.kind'],
    ],
    [
      'percent rule without percent',
      { email: 'a@example.com', name: 'X', commissionSnapshot: { rules: [{ eventType: 'signup', kind: 'percent' }] } },
      ['commissionSnapshot.rules.0.percent'],
    ],
  ];
  for (const [label, body, fields] of cases) {
    test(label, async () => {
      const before = await count();
      const res = await svc.api('POST', '/partners', { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
      expect(typeof res.body.message).toBe('string');
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(fields.sort());
      expect(await count()).toBe(before);
    });
  }

  test('an unknown enum value names the allowed values', async () => {
    const res = await svc.api('POST', '/partners', { body: { email: 'a@example.com', name: 'X', campaignGrantSource: 'x' } });
    expect(res.body.details[0].message).toBe('must be one of "admin", "offering"');
  });
});

describe('malformed requests', () => {
  test('malformed JSON is 400 invalid_body', async () => {
    const res = await svc.api('POST', '/partners', { raw: '{"email": "a@', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'invalid_body', message: 'request body is not valid JSON' });
  });

  test('a JSON array, string or null body is 400', async () => {
    for (const raw of ['[]', '"x"', 'null', '12']) {
      const res = await svc.api('POST', '/partners', { raw, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
    }
  });

  test('an empty body is 400', async () => {
    const res = await svc.api('POST', '/partners', { headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
  });

  test('a body over 1 MiB is 413 payload_too_large, declared or streamed', async () => {
    const big = JSON.stringify({ email: 'big@example.com', name: 'Big', metadata: { blob: 'x'.repeat(1024 * 1024) } });
    const declared = await svc.api('POST', '/partners', { raw: big, headers: { 'content-type': 'application/json' } });
    expect(declared.status).toBe(413);
    expect(declared.body.code).toBe('payload_too_large');

    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const res = await fetch(`${svc.url}/partners`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.adminKey}`, 'content-type': 'application/json' },
      body: stream,
    });
    expect(res.status).toBe(413);
    expect((await res.json()).code).toBe('payload_too_large');
    expect(await svc.sql`select 1 from partners where email = 'big@example.com'`).toHaveLength(0);
  });

  test('metadata over 16 KiB is 400', async () => {
    const res = await svc.api('POST', '/partners', { body: { email: 'meta@example.com', name: 'M', metadata: { blob: 'x'.repeat(17000) } } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'metadata', message: 'larger than 16 KiB' }]);
  });

  test('a body that is not JSON is 400', async () => {
    for (const type of ['application/octet-stream', 'text/plain', 'text/csv']) {
      const res = await svc.api('POST', '/partners', { raw: 'a,b', headers: { 'content-type': type } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
    }
  });

  test('unknown routes are JSON 404', async () => {
    const res = await svc.api('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  test('operations on unknown partners are 404', async () => {
    const id = 'ptn_00000000000000000000000000';
    for (const [method, path, body] of [
      ['PATCH', `/partners/${id}`, { name: 'x' }],
      ['POST', `/partners/${id}/invite`, undefined],
      ['POST', `/partners/${id}/revoke`, {}],
      ['POST', `/partners/${id}/reinstate`, undefined],
      ['DELETE', `/v1/partners/${id}`, undefined],
      ['GET', `/partners/${id}/commission-snapshot`, undefined],
      ['POST', `/v1/partners/${id}/api-keys`, { name: 'k' }],
      ['GET', `/partners/${'x'.repeat(300)}`, undefined],
    ] as const) {
      const res = await svc.api(method, path, { body });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  test('weird bytes never produce a 500', async () => {
    const bodies = ['\u0000', '{"email":"\ud800@x.com","name":"x"}', '{"__proto__":{"admin":true},"email":"p@x.com","name":"x"}', '{'.repeat(10000)];
    for (const raw of bodies) {
      const res = await svc.api('POST', '/partners', { raw, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBeLessThan(500);
    }
    const q = await svc.api('GET', '/partners?email=%E0%A4%A&limit=%00');
    expect(q.status).toBeLessThan(500);
  });
});

describe('values PostgreSQL refuses', () => {
  test('NUL characters anywhere are 400, never 500', async () => {
    const cases: [string, string, unknown][] = [
      ['GET', '/v1/partners?email=%00', undefined],
      ['GET', '/v1/partners/ptn%00', undefined],
      ['POST', '/partners', { email: 'nul@example.com', name: 'N\u0000', sendInvite: false }],
      ['POST', '/partners', { email: 'nul2@example.com', name: 'N', sendInvite: false, metadata: { a: 'x\u0000' } }],
    ];
    for (const [method, path, body] of cases) {
      const res = await svc.api(method, path, { body });
      expect([400, 404]).toContain(res.status);
    }
    expect(await svc.sql`select 1 from partners where email like 'nul%'`).toHaveLength(0);
  });
});
