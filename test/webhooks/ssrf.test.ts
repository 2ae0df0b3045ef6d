// Outbound safety: without the allow flags, webhooks never reach private, loopback, link-local or
// metadata addresses, whether written as literals or reached through a name, and the address that
// was checked is the one connected to.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { classifyAddress, resolveTarget, urlProblem } from '../../src/modules/webhooks/guard';
import { attemptDelivery } from '../../src/modules/webhooks/send';
import { startService, type TestService } from '../support/service';
import { startReceiver, type Receiver } from '../support/receiver';
import { createPartner } from '../support/webhooks';

let strict: TestService; // no flags at all
let httpOnly: TestService; // WEBHOOK_ALLOW_HTTP only: plain http, but still no private addresses
let rcv: Receiver;
beforeAll(async () => {
  strict = await startService({ WEBHOOK_TIMEOUT_MS: '1000' });
  httpOnly = await startService({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_TIMEOUT_MS: '1000' });
  rcv = await startReceiver();
}, 60_000);
afterAll(async () => {
  await strict.stop();
  await httpOnly.stop();
  await rcv.stop();
});

const REFUSED_LITERALS = [
  'https://127.0.0.1/hook',
  'https://127.1.2.3:8443/hook',
  'https://10.0.0.1/hook',
  'https://172.16.5.4/hook',
  'https://192.168.1.1/hook',
  'https://169.254.169.254/latest/meta-data/',
  'https://[::1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:a9fe:a9fe]/hook', // 169.254.169.254, mapped
  'https://[fe80::1]/hook',
  'https://[fd00:ec2::254]/hook',
  'https://0.0.0.0/hook',
  'https://2130706433/hook', // 127.0.0.1 as one number
  'https://0x7f.1/hook',
];

describe('registration refuses what can be refused up front', () => {
  test('private, loopback, link-local and metadata literals (IPv4 and IPv6)', async () => {
    for (const url of REFUSED_LITERALS) {
      const res = await strict.api('POST', '/webhooks', { body: { url, events: ['*'] } });
      expect({ url, status: res.status, code: res.body.code, field: res.body.details?.[0]?.field }).toEqual({
        url,
        status: 400,
        code: 'invalid_body',
        field: 'url',
      });
    }
    expect(await strict.sql`select url from webhook_endpoints`).toHaveLength(0);
  });

  test('plain http without WEBHOOK_ALLOW_HTTP; https public names are fine', async () => {
    const http = await strict.api('POST', '/webhooks', { body: { url: 'http://hooks.example.com/h', events: ['*'] } });
    expect(http.status).toBe(400);
    expect(http.body.details[0].message).toContain('https');
    expect((await strict.api('POST', '/webhooks', { body: { url: 'https://hooks.example.com/h', events: ['*'] } })).status).toBe(201);
    // (subscribed to something this test never emits, so nothing is sent out to the internet)
    expect((await httpOnly.api('POST', '/webhooks', { body: { url: 'http://hooks.example.com/h', events: ['payout.created'] } })).status).toBe(201);
    // WEBHOOK_ALLOW_HTTP alone does not open private addresses
    expect((await httpOnly.api('POST', '/webhooks', { body: { url: `${rcv.url}/h`, events: ['*'] } })).status).toBe(400);
  });
});

describe('sending checks the resolved address', () => {
  test('a name resolving to 127.0.0.1 is blocked, logged as blocked, and nothing arrives', async () => {
    const url = `http://localhost:${rcv.port}/via-name`;
    const reg = await httpOnly.api('POST', '/webhooks', { body: { url, events: ['partner.created'] } });
    expect(reg.status).toBe(201); // a name: checked when sending, since its answer can change

    const sent = await httpOnly.api('POST', `/webhooks/${reg.body.endpoint.id}/test`);
    expect(sent.body).toMatchObject({ status: 'failed', error: 'blocked', responseStatus: null });
    expect(sent.body.responseBody).toContain('127.0.0.1');

    await createPartner(httpOnly);
    await httpOnly.deliverWebhooks();
    const rows = (await httpOnly.api('GET', `/webhooks/${reg.body.endpoint.id}/deliveries?event=partner.created`)).body.deliveries;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'failed', error: 'blocked' });
    expect(rcv.received.filter((r) => r.path === '/via-name')).toHaveLength(0);
  });

  test('literal addresses stored earlier (e.g. under other flags) are blocked at send time too', async () => {
    const targets = [
      `http://127.0.0.1:${rcv.port}/stored`,
      `http://[::1]:${rcv.port}/stored`,
      'http://10.0.0.1/stored',
      'http://169.254.169.254/latest/meta-data/',
    ];
    for (const url of targets) {
      const id = `whe_0000000000000000000000000${targets.indexOf(url)}`;
      await httpOnly.sql`insert into webhook_endpoints (id, url, events, secret) values (${id}, ${url}, ${['webhook.test']}, 'whsec_AAAA')`;
      const sent = await httpOnly.api('POST', `/webhooks/${id}/test`);
      expect({ url, status: sent.body.status, error: sent.body.error }).toEqual({ url, status: 'failed', error: 'blocked' });
    }
    expect(rcv.received.filter((r) => r.path === '/stored')).toHaveLength(0);
  });

  test('https URLs on a name resolving to loopback are blocked without any flag', async () => {
    const reg = await strict.api('POST', '/webhooks', { body: { url: `https://localhost:${rcv.port}/strict`, events: ['*'] } });
    expect(reg.status).toBe(201);
    const sent = await strict.api('POST', `/webhooks/${reg.body.endpoint.id}/test`);
    expect(sent.body).toMatchObject({ status: 'failed', error: 'blocked' });
  });
});

describe('address rules', () => {
  test('classification of IPv4 and IPv6 addresses', () => {
    const cases: [string, string][] = [
      ['127.0.0.1', 'private'],
      ['10.0.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.0.10', 'private'],
      ['100.64.1.1', 'private'],
      ['169.254.1.1', 'private'],
      ['169.254.169.254', 'forbidden'],
      ['100.100.100.200', 'forbidden'],
      ['0.0.0.0', 'forbidden'],
      ['224.0.0.1', 'forbidden'],
      ['255.255.255.255', 'forbidden'],
      ['::1', 'private'],
      ['fe80::1', 'private'],
      ['fc00::1', 'private'],
      ['fd12:3456::1', 'private'],
      ['fd00:ec2::254', 'forbidden'],
      ['::', 'forbidden'],
      ['ff02::1', 'forbidden'],
      ['::ffff:127.0.0.1', 'private'],
      ['::ffff:7f00:1', 'private'],
      ['::ffff:169.254.169.254', 'forbidden'],
      ['::127.0.0.1', 'private'],
      ['64:ff9b::10.0.0.1', 'private'],
      ['64:ff9b::8.8.8.8', 'public'],
      ['8.8.8.8', 'public'],
      ['93.184.216.34', 'public'],
      ['172.32.0.1', 'public'],
      ['2606:4700:4700::1111', 'public'],
      ['::ffff:8.8.8.8', 'public'],
      ['not-an-ip', 'forbidden'],
    ];
    for (const [address, expected] of cases) expect({ address, got: classifyAddress(address) }).toEqual({ address, got: expected as never });
  });

  test('the allow flags open exactly what they say', () => {
    const none = { allowHttp: false, allowPrivate: false };
    const both = { allowHttp: true, allowPrivate: true };
    expect(urlProblem('https://10.0.0.1/h', none)).not.toBeNull();
    expect(urlProblem('https://10.0.0.1/h', { ...none, allowPrivate: true })).toBeNull();
    expect(urlProblem('http://example.com/h', none)).not.toBeNull();
    expect(urlProblem('http://example.com/h', { ...none, allowHttp: true })).toBeNull();
    // metadata stays closed even with both flags
    expect(urlProblem('http://169.254.169.254/h', both)).not.toBeNull();
    expect(urlProblem('http://127.0.0.1:8080/h', both)).toBeNull();
  });

  test('DNS rebinding: the name is resolved once, every answer must pass, and that address is used', async () => {
    const answers = [
      [{ address: '93.184.216.34', family: 4 }],
      [{ address: '127.0.0.1', family: 4 }],
    ];
    let calls = 0;
    const rebinding = async () => answers[Math.min(calls++, 1)]!;
    const target = await resolveTarget('https://rebind.example.test/h', { allowHttp: false, allowPrivate: false }, rebinding);
    expect(target).toMatchObject({ ok: true, address: '93.184.216.34' });
    expect(calls).toBe(1);

    // one private answer among public ones blocks the delivery
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.1.1.1', family: 4 },
    ];
    expect(await resolveTarget('https://mixed.example.test/h', { allowHttp: false, allowPrivate: false }, mixed)).toMatchObject({ ok: false, error: 'blocked' });
    const v6 = async () => [{ address: '::1', family: 6 }];
    expect(await resolveTarget('https://six.example.test/h', { allowHttp: false, allowPrivate: false }, v6)).toMatchObject({ ok: false, error: 'blocked' });
  });

  test('the request goes to the checked address and carries the name in Host', async () => {
    let lookups = 0;
    const lookup = async () => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const input = { url: `http://hooks.rebind.test:${rcv.port}/pinned`, secret: 'whsec_AAAA', event: 'webhook.test', envelopeId: 'evt_x', deliveryId: 'evt_y', body: '{}' };
    // the timeouts only bound a broken run: a receiver in this process may answer late on a loaded machine
    const blocked = await attemptDelivery(input, { allowHttp: true, allowPrivate: false, timeoutMs: 10_000, lookup });
    expect(blocked).toMatchObject({ status: 'failed', error: 'blocked' });
    const allowed = await attemptDelivery(input, { allowHttp: true, allowPrivate: true, timeoutMs: 10_000, lookup });
    expect(allowed).toMatchObject({ status: 'succeeded', responseStatus: 200 });
    expect(lookups).toBe(2);
    const [hook] = rcv.received.filter((r) => r.path === '/pinned');
    expect(hook!.headers.host).toBe(`hooks.rebind.test:${rcv.port}`);
  });
});

describe('HTTPS to the pinned address', () => {
  const dir = `${import.meta.dir}/fixtures`;
  test('the certificate is verified against the URL name, not the address connected to', async () => {
    const cert = await Bun.file(`${dir}/hooks.test.crt`).text();
    const key = await Bun.file(`${dir}/hooks.test.key`).text();
    const seen: string[] = [];
    const tls = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      tls: { cert, key },
      fetch: (req) => {
        seen.push(req.headers.get('host') ?? '');
        return new Response('secure');
      },
    });
    try {
      const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
      // a generous timeout (a TLS handshake with this process on a loaded machine); it only bounds a broken run
      const options = { allowHttp: false, allowPrivate: true, timeoutMs: 10_000, lookup, ca: cert };
      const input = (host: string) => ({
        url: `https://${host}:${tls.port}/h`,
        secret: 'whsec_AAAA',
        event: 'webhook.test',
        envelopeId: 'evt_x',
        deliveryId: 'evt_y',
        body: '{}',
      });
      expect(await attemptDelivery(input('hooks.test'), options)).toMatchObject({ status: 'succeeded', responseBody: 'secure' });
      expect(seen).toEqual([`hooks.test:${tls.port}`]);
      // same address, but the certificate does not name this host: refused
      expect(await attemptDelivery(input('other.test'), options)).toMatchObject({ status: 'failed', error: 'network' });
      // and without trusting the self-signed certificate: refused
      expect(await attemptDelivery(input('hooks.test'), { ...options, ca: undefined })).toMatchObject({ status: 'failed', error: 'network' });
      expect(seen).toHaveLength(1);
    } finally {
      tls.stop(true);
    }
  });

  test('a name that does not resolve within the timeout is a timeout', async () => {
    const never = () => new Promise<never>(() => undefined);
    const result = await attemptDelivery(
      { url: 'https://slow-dns.test/h', secret: 'whsec_AAAA', event: 'webhook.test', envelopeId: 'evt_x', deliveryId: 'evt_y', body: '{}' },
      { allowHttp: false, allowPrivate: false, timeoutMs: 200, lookup: never },
    );
    expect(result).toMatchObject({ status: 'failed', error: 'timeout' });
  });
});
