// A real webhook subscriber on 127.0.0.1 (Bun.serve, port 0): keeps every request it receives and
// answers with whatever `respond` says (200 "ok" by default). Every body is checked against the
// documented event schemas (support/contract.ts).
import { checkEnvelope } from './contract';
import { eventually } from './eventually';

export type ReceivedWebhook = { path: string; headers: Record<string, string>; body: string; json: any; at: number };

export type Receiver = {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** How the next requests are answered. */
  respond: (request: Request) => Response | Promise<Response>;
  /** Waits until `check(received)` holds; fails after `ms` with what arrived. */
  waitUntil(check: (received: ReceivedWebhook[]) => boolean, ms?: number): Promise<ReceivedWebhook[]>;
  /** Waits for at least `count` requests. */
  waitFor(count: number, ms?: number): Promise<ReceivedWebhook[]>;
  stop(): Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const receiver: Receiver = {
    url: '',
    port: 0,
    received,
    respond: () => new Response('ok'),
    async waitUntil(check, ms) {
      await eventually(
        () => {
          if (!check(received)) {
            throw new Error(`receiver: condition not met; got ${received.length}: ${received.map((r) => r.headers['x-service-event']).join(', ')}`);
          }
        },
        { timeout: ms },
      );
      return received;
    },
    waitFor(count, ms) {
      return receiver.waitUntil((r) => r.length >= count, ms);
    },
    async stop() {
      server.stop(true);
    },
  };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 60,
    async fetch(request) {
      const body = await request.text();
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      // envelopes (low-level send tests post bare bodies with no event in them)
      if ((json as { event?: unknown } | undefined)?.event !== undefined) checkEnvelope(json);
      received.push({
        path: new URL(request.url).pathname,
        headers: request.headers.toJSON(),
        body,
        json,
        at: Date.now(),
      });
      return receiver.respond(request);
    },
  });
  receiver.port = server.port!;
  receiver.url = `http://127.0.0.1:${server.port}`;
  return receiver;
}
