// A stand-in for PayPal's REST API on 127.0.0.1 (PAYPAL_API_URL): OAuth2 client credentials, batch
// payouts (PayPal-Request-Id replays the first answer; a sender_batch_id used before is refused as a
// duplicate; more than 15,000 items refused), reading a batch, and verify-webhook-signature, which
// vouches only for webhooks this stand-in signed (`signedWebhook`). Records every call.
import { createHmac } from 'node:crypto';
import { freePort } from './service';

export type PayPalCall = { method: string; path: string; requestId: string | null; authorization: string | null; body: any };
export type PayPalItemState = { batchId: string; itemId: string; payoutId: string; receiver: string; value: string; currency: string; note: string; status: string; error: string | null };

export type PayPalStandIn = {
  url: string;
  clientId: string;
  clientSecret: string;
  webhookId: string;
  calls: PayPalCall[];
  /** Tokens handed out. */
  tokens: number;
  /** Batches accepted, by sender_batch_id. */
  batches: Map<string, { batchId: string; items: PayPalItemState[] }>;
  /** Every item accepted, by payout id (sender_item_id). */
  items: Map<string, PayPalItemState>;
  delayMs: number;
  /** The next call answers this instead. */
  failNext: { status: number; body: unknown } | null;
  /** Sets an item's transaction_status, as PayPal would later report it. */
  setStatus(payoutId: string, status: string, error?: string): void;
  /** A webhook body and headers as PayPal would send them for this item and event suffix (SUCCEEDED, FAILED...). */
  signedWebhook(payoutId: string, suffix: string): { body: string; headers: Record<string, string> };
  stop(): void;
};

export async function startPayPalStandIn(): Promise<PayPalStandIn> {
  const port = await freePort();
  const signingKey = crypto.randomUUID();
  const replays = new Map<string, { status: number; body: unknown }>();
  const tokens = new Set<string>();
  let counter = 0;
  const sign = (id: string, time: string, body: string) => createHmac('sha256', signingKey).update(`${id}|${time}|${body}`).digest('base64');

  const standIn: PayPalStandIn = {
    url: `http://127.0.0.1:${port}`,
    clientId: 'AV-standin-client',
    clientSecret: 'EL-standin-secret',
    webhookId: 'WH-STANDIN-1',
    calls: [],
    tokens: 0,
    batches: new Map(),
    items: new Map(),
    delayMs: 0,
    failNext: null,
    setStatus(payoutId, status, error) {
      const item = standIn.items.get(payoutId);
      if (!item) throw new Error(`no PayPal item for ${payoutId}`);
      item.status = status;
      item.error = error ?? null;
    },
    signedWebhook(payoutId, suffix) {
      const item = standIn.items.get(payoutId);
      const event = {
        id: `WH-EVT-${++counter}`,
        event_type: `PAYMENT.PAYOUTS-ITEM.${suffix}`,
        resource_type: 'payouts_item',
        resource: {
          payout_item_id: item?.itemId ?? 'UNKNOWN',
          transaction_status: suffix === 'SUCCEEDED' ? 'SUCCESS' : suffix,
          payout_batch_id: item?.batchId ?? 'UNKNOWN',
          payout_item: { sender_item_id: payoutId, receiver: item?.receiver, amount: { value: item?.value, currency: item?.currency } },
          ...(item?.error ? { errors: { name: item.error, message: `${item.error}: as PayPal says it` } } : {}),
        },
      };
      const body = JSON.stringify(event);
      const id = crypto.randomUUID();
      const time = new Date().toISOString();
      return {
        body,
        headers: {
          'content-type': 'application/json',
          'paypal-transmission-id': id,
          'paypal-transmission-time': time,
          'paypal-transmission-sig': sign(id, time, body),
          'paypal-cert-url': `${standIn.url}/certs/standin.pem`,
          'paypal-auth-algo': 'SHA256withRSA',
        },
      };
    },
    stop: () => server.stop(true),
  };

  const itemJson = (i: PayPalItemState) => ({
    payout_item_id: i.itemId,
    transaction_status: i.status,
    payout_batch_id: i.batchId,
    payout_item: { sender_item_id: i.payoutId, receiver: i.receiver, amount: { value: i.value, currency: i.currency }, note: i.note },
    ...(i.error ? { errors: { name: i.error, message: `${i.error}: as PayPal says it` } } : {}),
  });

  const answer = (call: PayPalCall, url: URL): { status: number; body: unknown } => {
    if (call.method === 'POST' && call.path === '/v1/payments/payouts') {
      const senderBatchId = call.body?.sender_batch_header?.sender_batch_id;
      const items = call.body?.items;
      if (typeof senderBatchId !== 'string' || !Array.isArray(items) || items.length === 0) {
        return { status: 400, body: { name: 'VALIDATION_ERROR', message: 'Invalid request - see details', details: [{ field: 'items', issue: 'required' }] } };
      }
      if (items.length > 15_000) return { status: 400, body: { name: 'VALIDATION_ERROR', message: 'Batch size exceeds 15000 items' } };
      if (standIn.batches.has(senderBatchId)) {
        return { status: 400, body: { name: 'USER_BUSINESS_ERROR', message: 'User business error.', details: [{ field: 'SENDER_BATCH_ID', issue: 'Batch with given sender_batch_id already exists' }] } };
      }
      const batchId = `PB${String(++counter).padStart(8, '0')}`;
      const states = items.map((it: any) => {
        const state: PayPalItemState = {
          batchId, itemId: `PI${String(++counter).padStart(8, '0')}`, payoutId: it.sender_item_id, receiver: it.receiver,
          value: it.amount?.value, currency: it.amount?.currency, note: it.note, status: 'PENDING', error: null,
        };
        standIn.items.set(state.payoutId, state);
        return state;
      });
      standIn.batches.set(senderBatchId, { batchId, items: states });
      return { status: 201, body: { batch_header: { payout_batch_id: batchId, batch_status: 'PENDING', sender_batch_header: call.body.sender_batch_header } } };
    }
    const batch = /^\/v1\/payments\/payouts\/([A-Z0-9]+)$/.exec(call.path);
    if (call.method === 'GET' && batch) {
      const found = [...standIn.batches.values()].find((b) => b.batchId === batch[1]);
      if (!found) return { status: 404, body: { name: 'INVALID_RESOURCE_ID', message: 'Requested resource ID was not found.' } };
      const page = Number(url.searchParams.get('page') ?? 1);
      const size = Number(url.searchParams.get('page_size') ?? 1000);
      return { status: 200, body: { batch_header: { payout_batch_id: found.batchId, batch_status: 'SUCCESS' }, items: found.items.slice((page - 1) * size, page * size).map(itemJson) } };
    }
    if (call.method === 'POST' && call.path === '/v1/notifications/verify-webhook-signature') {
      const b = call.body ?? {};
      const ok = b.webhook_id === standIn.webhookId && b.transmission_sig === sign(b.transmission_id, b.transmission_time, JSON.stringify(b.webhook_event));
      return { status: 200, body: { verification_status: ok ? 'SUCCESS' : 'FAILURE' } };
    }
    return { status: 404, body: { name: 'RESOURCE_NOT_FOUND', message: `no ${call.method} ${call.path}` } };
  };

  const server = Bun.serve({
    port,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url);
      const text = await request.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {}
      const call: PayPalCall = { method: request.method, path: url.pathname, requestId: request.headers.get('paypal-request-id'), authorization: request.headers.get('authorization'), body };
      standIn.calls.push(call);
      if (standIn.delayMs > 0) await Bun.sleep(standIn.delayMs);
      if (standIn.failNext) {
        const failure = standIn.failNext;
        standIn.failNext = null;
        return Response.json(failure.body, { status: failure.status });
      }
      if (call.method === 'POST' && call.path === '/v1/oauth2/token') {
        if (call.authorization !== `Basic ${btoa(`${standIn.clientId}:${standIn.clientSecret}`)}` || text !== 'grant_type=client_credentials') {
          return Response.json({ error: 'invalid_client', error_description: 'Client Authentication failed' }, { status: 401 });
        }
        const token = `A21AA${crypto.randomUUID().replaceAll('-', '')}`;
        tokens.add(token);
        standIn.tokens++;
        return Response.json({ scope: 'https://uri.paypal.com/services/payments/payouts', access_token: token, token_type: 'Bearer', expires_in: 32400 });
      }
      if (!tokens.has(call.authorization?.replace(/^Bearer /, '') ?? '')) {
        return Response.json({ error: 'invalid_token', error_description: 'Token signature verification failed' }, { status: 401 });
      }
      const replay = call.requestId ? replays.get(call.requestId) : undefined;
      if (replay) return Response.json(replay.body, { status: replay.status });
      const made = answer(call, url);
      if (call.requestId && made.status < 500) replays.set(call.requestId, made);
      return Response.json(made.body, { status: made.status });
    },
  });
  return standIn;
}
