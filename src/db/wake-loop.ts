// The loop of the outbox workers (the webhook dispatcher, the email worker): a pass of work runs when
// woken, by a NOTIFY on the worker's channel (LISTEN) or by a poll for what a missed NOTIFY or a
// scheduled retry left due. One pass at a time; a wake-up during a pass runs another right after it.
import type { Logger } from '../lib/log';
import type { Sql } from './index';

export type WakeLoopOptions = {
  sql: Sql;
  /** The NOTIFY channel that says there is work. */
  channel: string;
  pollMs: number;
  log: Logger;
  /** One pass: does what is due; `running()` turns false when stop() is called. */
  pass(): Promise<void>;
  /** Whether a wake-up that came during a pass may run another (the dispatcher waits for a free slot). */
  canRepeat?(): boolean;
  /** What the log says when a pass throws. */
  failure: string;
};

export type WakeLoop = {
  /** Between start() and stop(). */
  readonly running: boolean;
  /** Runs a pass now, or right after the one under way. */
  wake(): void;
  /** Resolves when no pass is under way. */
  idle(): Promise<void>;
  /** Starts polling and listening (a failed LISTEN leaves polling alone), and runs a first pass. */
  start(): Promise<void>;
  /** Stops polling and listening, and waits for the pass under way. */
  stop(): Promise<void>;
};

export function createWakeLoop(options: WakeLoopOptions): WakeLoop {
  let running = false;
  let current: Promise<void> | undefined;
  let again = false;
  let poller: ReturnType<typeof setInterval> | undefined;
  let unlisten: (() => Promise<void>) | undefined;

  async function passes(): Promise<void> {
    do {
      again = false;
      await options.pass();
    } while (again && running && (options.canRepeat?.() ?? true));
  }

  function wake(): void {
    if (!running) return;
    if (current) {
      again = true;
      return;
    }
    current = passes()
      .catch((error) => options.log.error(options.failure, { error }))
      .finally(() => {
        current = undefined;
      });
  }

  return {
    get running() {
      return running;
    },
    wake,
    async idle() {
      while (current) await current;
    },
    async start() {
      if (running) return;
      running = true;
      poller = setInterval(wake, options.pollMs);
      wake();
      try {
        const listener = await options.sql.listen(options.channel, () => wake());
        if (running) unlisten = listener.unlisten;
        else await listener.unlisten();
      } catch (error) {
        if (running) options.log.warn('LISTEN failed; relying on polling', { error });
      }
    },
    async stop() {
      if (!running) return;
      running = false;
      clearInterval(poller);
      await unlisten?.().catch(() => undefined);
      unlisten = undefined;
      while (current) await current;
    },
  };
}
