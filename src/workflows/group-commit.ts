// Group commit of the HTTP intake: concurrent POST /v1/events and /attribution/events requests are
// gathered for a few milliseconds and written by recordEvents in one transaction, so that many
// events share one commit (one WAL flush) instead of paying one each. Each request is answered only
// once its batch has committed.
import type { AppContext } from '../context';
import { AppError } from '../lib/errors';
import type { EventInput } from './record-event';
import { recordEvents, type EventOutcome } from './record-events';

type Waiting = { input: EventInput; settle: (outcome: EventOutcome) => void };

export type GroupCommitOptions = {
  /** Most events in one batch; a full batch leaves at once. */
  maxSize: number;
  /** How long the first event of a batch waits for company. */
  maxWaitMs: number;
  /** Lanes, each with at most one batch in flight. */
  concurrency: number;
};

type Write = (inputs: EventInput[]) => Promise<EventOutcome[]>;

/**
 * A user's events always take the same lane (by a hash of the user id). Two batches in flight thus
 * never share a user, so they never wait for each other's user locks and both cores of the database
 * work; and one lane runs one batch at a time, so a user's events commit in the order they came.
 */
export class GroupCommit {
  readonly #lanes: Lane[];

  constructor(write: Write, options: GroupCommitOptions) {
    this.#lanes = Array.from({ length: Math.max(1, options.concurrency) }, () => new Lane(write, options));
  }

  /** Records one event with whichever others arrive at about the same time. */
  record(input: EventInput): Promise<EventOutcome> {
    return this.#lanes[laneOf(input.userId, this.#lanes.length)]!.record(input);
  }
}

/** FNV-1a of the user id: cheap, and the same lane for the same user in every process. */
function laneOf(userId: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) hash = Math.imul(hash ^ userId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}

class Lane {
  readonly #queue: Waiting[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #busy = false;

  constructor(
    private readonly write: Write,
    private readonly options: GroupCommitOptions,
  ) {}

  record(input: EventInput): Promise<EventOutcome> {
    return new Promise((settle) => {
      this.#queue.push({ input, settle });
      if (this.#queue.length >= this.options.maxSize) this.#flush();
      else this.#timer ??= setTimeout(() => this.#flush(), this.options.maxWaitMs);
    });
  }

  /** Sends the queued events (up to a batch) unless a batch is in flight; that one flushes when it ends. */
  #flush() {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#busy || this.#queue.length === 0) return;
    void this.#run(this.#queue.splice(0, this.options.maxSize));
  }

  async #run(batch: Waiting[]) {
    this.#busy = true;
    try {
      const outcomes = await this.write(batch.map((w) => w.input));
      batch.forEach((w, i) => w.settle(outcomes[i]!));
    } catch (error) {
      // recordEvents answers every event itself; this only keeps a bug from leaving requests hanging
      const failure: EventOutcome = { ok: false, error: error instanceof AppError ? error : new AppError('internal', 'internal error') };
      for (const w of batch) w.settle(failure);
    } finally {
      this.#busy = false;
      // what queued meanwhile has waited at least one batch's time: it goes now
      if (this.#queue.length > 0) this.#flush();
    }
  }
}

const intakes = new WeakMap<AppContext, GroupCommit>();

/** The process's group commit (one per service, shared by the unprefixed and the /v1 routes). */
export function groupCommitOf(ctx: AppContext): GroupCommit {
  let intake = intakes.get(ctx);
  if (!intake) {
    intake = new GroupCommit((inputs) => recordEvents(ctx, inputs), ctx.config.eventBatch);
    intakes.set(ctx, intake);
  }
  return intake;
}

/** Records one event through the group commit; a failed event throws its error, as recordEvent would. */
export async function recordThroughGroupCommit(ctx: AppContext, input: EventInput) {
  const outcome = await groupCommitOf(ctx).record(input);
  if (!outcome.ok) throw outcome.error;
  return outcome.recorded;
}
