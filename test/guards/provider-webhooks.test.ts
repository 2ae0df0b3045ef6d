// Provider webhook routes exist only where their secret is set; elsewhere they answer 404, and the
// OpenAPI document says so on each provider's route.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { fullDocument } from '../../scripts/openapi';
import { PROVIDER_GUIDES } from '../../plugins';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

test('an unconfigured provider webhook answers 404 not_found, and the document lists that 404 on every provider route', async () => {
  const document = fullDocument() as { paths: Record<string, { post?: { responses: Record<string, { description: string }> } }> };
  for (const provider of PROVIDER_GUIDES) {
    const responses = document.paths[`/v1/webhooks/${provider.name}`]?.post?.responses;
    expect(responses?.['404']?.description).toContain('not configured');
    // the 404 is the API's error object: {code, message}
    expect((responses?.['404'] as { content?: Record<string, { schema: { required: string[] } }> })?.content?.['application/json']?.schema.required).toEqual(['code', 'message']);
    for (const path of [`/webhooks/${provider.name}`, `/v1/webhooks/${provider.name}`]) {
      const res = await fetch(svc.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"evt_1","type":"invoice.paid"}' });
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(body).toEqual({ code: 'not_found', message: expect.any(String) });
    }
  }
});
