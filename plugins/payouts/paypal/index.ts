// PayPal Payouts through its REST API with fetch (PayPal keeps no maintained Node SDK for Payouts):
// an OAuth2 client-credentials token reused until it expires, one POST /v1/payments/payouts per
// batch (sender_batch_id chosen by the core and written before the call, sent as PayPal-Request-Id
// too, so a repeated call answers the first batch instead of paying twice), webhook verification
// through PayPal's verify-webhook-signature, and reading a batch's items for the reconciliation.
import type { PayoutRail, PayPalApi, PayPalItem, PayPalWebhook, RailOutcome } from '../../payouts';
import { RailSignatureError } from '../../payouts';

export type PayPalOptions = { clientId: string; clientSecret: string; apiUrl: string; webhookId: string | undefined };

/** Largest batch PayPal takes. */
export const PAYPAL_BATCH_LIMIT = 15_000;

const PAID = new Set(['SUCCESS', 'SUCCEEDED']);
const FAILED = new Set(['FAILED', 'BLOCKED', 'RETURNED', 'REFUNDED', 'REVERSED', 'DENIED', 'CANCELED']);

export function outcomeOf(status: string): PayPalItem['outcome'] {
  if (PAID.has(status)) return 'paid';
  if (FAILED.has(status)) return 'failed';
  return 'open'; // UNCLAIMED, PENDING, ONHOLD, HELD, NEW
}

type RawItem = {
  payout_item_id?: string;
  transaction_status?: string;
  payout_item?: { sender_item_id?: string };
  errors?: { name?: string; message?: string };
};

function itemOf(raw: RawItem, status?: string): PayPalItem | null {
  const payoutId = raw.payout_item?.sender_item_id;
  const word = (status ?? raw.transaction_status ?? '').toUpperCase();
  if (typeof payoutId !== 'string' || word === '') return null;
  const message = raw.errors?.message ?? raw.errors?.name ?? null;
  return { payoutId, itemId: raw.payout_item_id ?? null, status: word, outcome: outcomeOf(word), message };
}

/** PayPal's words on a refused call: its name, message and the issues of its details. */
function refusal(status: number, body: any): string {
  const issues = Array.isArray(body?.details) ? body.details.map((d: any) => [d.field, d.issue].filter(Boolean).join(': ')).join('; ') : '';
  return [`PayPal ${status}`, body?.name, body?.message, issues].filter(Boolean).join(' ');
}

export class PayPalUnavailable extends Error {}

type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; ok: boolean; body: any }>;

/** Calls PayPal's API with an OAuth2 client-credentials token, reused until a minute before it expires. */
function paypalCaller(options: PayPalOptions): Call {
  const base = options.apiUrl.replace(/\/+$/, '');
  let token: { value: string; until: number } | null = null;
  let fetching: Promise<string> | null = null;

  const fetchToken = async (): Promise<string> => {
    const res = await fetch(`${base}/v1/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${btoa(`${options.clientId}:${options.clientSecret}`)}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: 'grant_type=client_credentials',
    }).catch((error) => {
      throw new PayPalUnavailable(`PayPal not reachable: ${error}`);
    });
    const body = (await res.json().catch(() => null)) as { access_token?: string; expires_in?: number } | null;
    if (!res.ok || !body?.access_token) throw new PayPalUnavailable(`PayPal refused the client credentials (${res.status})`);
    // a minute early, so a token never expires on its way
    token = { value: body.access_token, until: Date.now() + Math.max(0, (body.expires_in ?? 0) - 60) * 1000 };
    return body.access_token;
  };
  const accessToken = async (): Promise<string> => {
    if (token && token.until > Date.now()) return token.value;
    fetching ??= fetchToken().finally(() => {
      fetching = null;
    });
    return fetching;
  };
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${await accessToken()}`, 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      if (error instanceof PayPalUnavailable) throw error;
      throw new PayPalUnavailable(`PayPal not reachable: ${error}`);
    }
    if (res.status === 401) token = null; // the next call fetches a new one
    const parsed = await res.json().catch(() => null);
    if (res.status >= 500 || res.status === 401 || res.status === 429) throw new PayPalUnavailable(refusal(res.status, parsed));
    return { status: res.status, ok: res.ok, body: parsed as any };
  };
  return call;
}

export function createPayPal(options: PayPalOptions): { rail: PayoutRail; api: PayPalApi } {
  const call = paypalCaller(options);
  return { rail: payPalRail(call), api: payPalApi(call, options.webhookId) };
}

function payPalRail(call: Call): PayoutRail {
  return {
    name: 'paypal',
    batchLimit: PAYPAL_BATCH_LIMIT,
    async send(payouts) {
      const outcomes = new Map<string, RailOutcome>();
      if (payouts.length === 0) return outcomes;
      const batch = payouts[0]!.batch;
      if (!batch || payouts.some((p) => p.batch !== batch)) throw new Error('PayPal payouts go out in one batch with one sender_batch_id');
      const answer = await call(
        'POST',
        '/v1/payments/payouts',
        {
          sender_batch_header: { sender_batch_id: batch, recipient_type: 'EMAIL', email_subject: 'You have a payout' },
          items: payouts.map((p) => ({
            recipient_type: 'EMAIL',
            receiver: p.destination,
            amount: { value: p.amount, currency: p.currency },
            sender_item_id: p.id,
            note: p.note,
          })),
        },
        { 'paypal-request-id': batch },
      );
      if (answer.ok && typeof answer.body?.batch_header?.payout_batch_id === 'string') {
        const id = answer.body.batch_header.payout_batch_id as string;
        const status = String(answer.body.batch_header.batch_status ?? 'PENDING');
        for (const p of payouts) outcomes.set(p.id, { status: 'processing', reference: id, answer: `batch ${id} ${status}` });
        return outcomes;
      }
      const reason = refusal(answer.status, answer.body);
      // PayPal already has this batch (its request id no longer replayed): it may be paid, so it is
      // never failed here (that would pay it again); it stays pending for an operator to settle
      const duplicate = Array.isArray(answer.body?.details) && answer.body.details.some((d: any) => String(d?.field).toUpperCase() === 'SENDER_BATCH_ID');
      for (const p of payouts) outcomes.set(p.id, duplicate ? { status: 'pending' } : { status: 'failed', reason, answer: reason });
      return outcomes;
    },
  };
}

function payPalApi(call: Call, webhookId: string | undefined): PayPalApi {
  return {
    async verifyWebhook(rawBody, headers) {
      if (!webhookId) throw new RailSignatureError('PAYPAL_WEBHOOK_ID is not set');
      let event: any;
      try {
        event = JSON.parse(rawBody);
      } catch {
        throw new RailSignatureError('the body is not JSON');
      }
      if (typeof event?.id !== 'string' || typeof event?.event_type !== 'string') throw new RailSignatureError('a PayPal event has an id and an event_type');
      const header = (name: string) => headers.get(name) ?? '';
      for (const name of ['paypal-transmission-id', 'paypal-transmission-sig', 'paypal-cert-url', 'paypal-auth-algo', 'paypal-transmission-time']) {
        if (!header(name)) throw new RailSignatureError(`missing ${name} header`);
      }
      const answer = await call('POST', '/v1/notifications/verify-webhook-signature', {
        auth_algo: header('paypal-auth-algo'),
        cert_url: header('paypal-cert-url'),
        transmission_id: header('paypal-transmission-id'),
        transmission_sig: header('paypal-transmission-sig'),
        transmission_time: header('paypal-transmission-time'),
        webhook_id: webhookId,
        webhook_event: event,
      });
      if (!answer.ok || answer.body?.verification_status !== 'SUCCESS') {
        throw new RailSignatureError(`PayPal did not verify it (${answer.body?.verification_status ?? answer.status})`);
      }
      const prefix = 'PAYMENT.PAYOUTS-ITEM.';
      const item = event.event_type.startsWith(prefix) ? itemOf(event.resource ?? {}, event.event_type.slice(prefix.length)) : null;
      return { id: event.id, type: event.event_type, item } satisfies PayPalWebhook;
    },
    async batchItems(batchId) {
      const items: PayPalItem[] = [];
      const size = 1000;
      for (let page = 1; ; page++) {
        const answer = await call('GET', `/v1/payments/payouts/${encodeURIComponent(batchId)}?page=${page}&page_size=${size}`);
        if (!answer.ok) throw new PayPalUnavailable(refusal(answer.status, answer.body));
        const raw: RawItem[] = Array.isArray(answer.body?.items) ? answer.body.items : [];
        for (const r of raw) {
          const item = itemOf(r);
          if (item) items.push(item);
        }
        if (raw.length < size) return items;
      }
    },
  };
}
