// A stand-in for Stripe's API on 127.0.0.1, for the official client pointed at it (STRIPE_API_URL):
// Connect accounts, account links and transfers, with Stripe's idempotency (the same
// Idempotency-Key answers the first answer again). Records every call; can refuse transfers to an
// account, answer slowly, or fail the next call.
import { freePort } from './service';

export type StripeCall = { method: string; path: string; idempotencyKey: string | null; authorization: string | null; form: Record<string, string> };

export type StripeStandIn = {
  url: string;
  calls: StripeCall[];
  /** Transfers made (an idempotent repeat makes none), by idempotency key. */
  transfers: Map<string, { id: string; amount: number; currency: string; destination: string; transfer_group: string }>;
  /** Accounts made, by id: their payouts_enabled. */
  accounts: Map<string, { payoutsEnabled: boolean; metadata: Record<string, string>; email: string | null }>;
  /** Transfers to these accounts are refused (account_invalid). */
  refuse: Set<string>;
  /** Milliseconds each answer waits before it is worked out. */
  delayMs: number;
  /** Milliseconds each answer waits after it is worked out (the transfer is made, the caller does not know yet). */
  delayAfterMs: number;
  /** The next call answers this error instead. */
  failNext: { status: number; body: unknown } | null;
  stop(): void;
};

const error = (status: number, type: string, message: string, code?: string) => Response.json({ error: { type, code, message } }, { status });

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const port = await freePort();
  const idempotent = new Map<string, { status: number; body: unknown }>();
  let counter = 0;
  const standIn: StripeStandIn = {
    url: `http://127.0.0.1:${port}`,
    calls: [],
    transfers: new Map(),
    accounts: new Map(),
    refuse: new Set(),
    delayMs: 0,
    delayAfterMs: 0,
    failNext: null,
    stop: () => server.stop(true),
  };
  const metadataOf = (form: Record<string, string>) =>
    Object.fromEntries(Object.entries(form).filter(([k]) => k.startsWith('metadata[')).map(([k, v]) => [k.slice(9, -1), v]));

  const answer = (call: StripeCall): { status: number; body: unknown } => {
    const { method, path, form } = call;
    if (method === 'POST' && path === '/v1/accounts') {
      const id = `acct_standin${String(++counter).padStart(6, '0')}`;
      standIn.accounts.set(id, { payoutsEnabled: false, metadata: metadataOf(form), email: form.email ?? null });
      return { status: 200, body: { id, object: 'account', type: form.type, payouts_enabled: false, metadata: metadataOf(form) } };
    }
    const account = /^\/v1\/accounts\/(acct_[A-Za-z0-9]+)$/.exec(path);
    if (method === 'GET' && account) {
      const a = standIn.accounts.get(account[1]!);
      if (!a) return { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such account: '${account[1]}'` } } };
      return { status: 200, body: { id: account[1], object: 'account', payouts_enabled: a.payoutsEnabled, metadata: a.metadata } };
    }
    if (method === 'POST' && path === '/v1/account_links') {
      if (!standIn.accounts.has(form.account ?? '')) return { status: 400, body: { error: { type: 'invalid_request_error', message: 'No such account' } } };
      return { status: 200, body: { object: 'account_link', url: `https://connect.stripe.test/setup/e/${form.account}/${++counter}`, return_url: form.return_url, refresh_url: form.refresh_url } };
    }
    if (method === 'POST' && path === '/v1/transfers') {
      const destination = form.destination ?? '';
      if (standIn.refuse.has(destination)) {
        return { status: 400, body: { error: { type: 'invalid_request_error', code: 'account_invalid', message: 'The destination account is not connected.' } } };
      }
      const id = `tr_standin${String(++counter).padStart(6, '0')}`;
      const made = { id, amount: Number(form.amount), currency: form.currency ?? '', destination, transfer_group: form.transfer_group ?? '' };
      standIn.transfers.set(call.idempotencyKey ?? id, made);
      return { status: 200, body: { ...made, object: 'transfer', metadata: metadataOf(form) } };
    }
    return { status: 404, body: { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } } };
  };

  const server = Bun.serve({
    port,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url);
      const form = Object.fromEntries(new URLSearchParams(await request.text()));
      const call: StripeCall = {
        method: request.method,
        path: url.pathname,
        idempotencyKey: request.headers.get('idempotency-key'),
        authorization: request.headers.get('authorization'),
        form,
      };
      standIn.calls.push(call);
      if (standIn.delayMs > 0) await Bun.sleep(standIn.delayMs);
      if (standIn.failNext) {
        const failure = standIn.failNext;
        standIn.failNext = null;
        return Response.json(failure.body, { status: failure.status });
      }
      if (!call.authorization?.startsWith('Bearer sk_')) return error(401, 'invalid_request_error', 'Invalid API Key provided');
      const key = call.idempotencyKey ? `${call.method} ${call.path} ${call.idempotencyKey}` : null;
      const first = key ? idempotent.get(key) : undefined;
      if (first) return Response.json(first.body, { status: first.status, headers: { 'idempotent-replayed': 'true' } });
      const made = answer(call);
      if (key) idempotent.set(key, made);
      if (standIn.delayAfterMs > 0) await Bun.sleep(standIn.delayAfterMs);
      return Response.json(made.body, { status: made.status });
    },
  });
  return standIn;
}
