// One HTTP delivery attempt: resolve and check the target, connect to the checked address, post
// the signed envelope, and describe the outcome as a delivery-log entry. Never throws.
import { deliveryHeaders } from './signing';
import { resolveTarget, type GuardOptions, type Lookup } from './guard';

export const RESPONSE_BODY_LIMIT = 2048;

export type DeliveryError = 'timeout' | 'network' | 'http_status' | 'blocked';

export type AttemptResult = {
  status: 'succeeded' | 'failed';
  responseStatus: number | null;
  /** First 2 KiB of the answer; for `blocked` / `network` / `timeout`, what went wrong. */
  responseBody: string | null;
  error: DeliveryError | null;
  durationMs: number;
};

export type AttemptInput = {
  url: string;
  secret: string;
  /** The secret before the last rotation, within the 24 h it still signs (webhook-signature lists both). */
  previousSecret?: string | null;
  event: string;
  envelopeId: string;
  deliveryId: string;
  body: string;
};

export type SendOptions = GuardOptions & {
  timeoutMs: number;
  /** Name resolution (tests pass a fake one). */
  lookup?: Lookup;
  /** Extra trusted CA certificates (PEM); the system store is used otherwise. */
  ca?: string;
};

export async function attemptDelivery(input: AttemptInput, options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  try {
    const target = await Promise.race([
      resolveTarget(input.url, options, options.lookup),
      new Promise<null>((ok) => controller.signal.addEventListener('abort', () => ok(null), { once: true })),
    ]);
    if (target === null) return timeoutResult(elapsed(), options.timeoutMs);
    if (!target.ok) return { status: 'failed', responseStatus: null, responseBody: target.message, error: target.error, durationMs: elapsed() };
    if (timedOut) return timeoutResult(elapsed(), options.timeoutMs);
    const { url, address, family } = target;
    // connect to the address that was checked; the name travels in Host and in TLS SNI
    const connectUrl = new URL(url.toString());
    connectUrl.hostname = family === 6 ? `[${address}]` : address;
    const headers = deliveryHeaders(input);
    const response = await fetch(connectUrl, {
      method: 'POST',
      headers: { ...headers, host: url.host },
      body: input.body,
      redirect: 'manual',
      signal: controller.signal,
      proxy: false,
      tls: { serverName: url.hostname.replace(/^\[|\]$/g, ''), ...(options.ca ? { ca: options.ca } : {}) },
    } as RequestInit);
    const text = await readLimited(response, RESPONSE_BODY_LIMIT);
    const ok = response.status >= 200 && response.status < 300;
    return {
      status: ok ? 'succeeded' : 'failed',
      responseStatus: response.status,
      responseBody: text,
      error: ok ? null : 'http_status',
      durationMs: elapsed(),
    };
  } catch (error) {
    if (timedOut) return timeoutResult(elapsed(), options.timeoutMs);
    const e = error as { code?: string; message?: string };
    const message = [e.code, e.message].filter(Boolean).join(': ').slice(0, RESPONSE_BODY_LIMIT) || 'request failed';
    return { status: 'failed', responseStatus: null, responseBody: message, error: 'network', durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}

function timeoutResult(durationMs: number, timeoutMs: number): AttemptResult {
  return { status: 'failed', responseStatus: null, responseBody: `no answer within ${timeoutMs} ms`, error: 'timeout', durationMs };
}

/** Reads at most `limit` bytes of the body (as UTF-8 text), then lets the rest go. */
async function readLimited(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    if (size >= limit) await reader.cancel().catch(() => undefined);
    else reader.releaseLock();
  }
  // cut on a character boundary so the stored text stays valid UTF-8
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit)).replace(/\uFFFD$/, '');
}
