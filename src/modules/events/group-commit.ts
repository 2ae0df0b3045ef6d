// Group commit of the HTTP intake: concurrent POST /v1/events and /attribution/events requests are
// gathered for a few milliseconds and written by recordEvents in one transaction, so that many
// events share one commit (one WAL flush) instead of paying one each. Each request is answered only
// once its batch has committed.
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import type { EventInput } from '../../workflows/record-event';
import { recordEvents, type EventOutcome } from '../../workflows/record-events';

type Waiting = { input: EventInput; settle: (outcome: EventOutcome) => void };

export type GroupCommitOptions = {
  /** Most events in one batch; a full batch leaves at once. */
  maxSize: number;
  /** How long the first event of a batch waits for company. */
  maxWaitMs: number;
  /** Batches in flight at once; while all are busy, the queue keeps growing into the next ones. */
  concurrency: number;
};

export class GroupCommit {
  readonly #queue: Waiting[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The queued events have waited their time (or filled a batch): they leave with the next free slot. */
  #due = false;
  #running = 0;

  constructor(
    private readonly write: (inputs: EventInput[]) => Promise<EventOutcome[]>,
    private readonly options: GroupCommitOptions,
  ) {}

  /** Records one event with whichever others arrive at about the same time. */
  record(input: EventInput): Promise<EventOutcome> {
    return new Promise((settle) => {
      this.#queue.push({ input, settle });
      if (this.#queue.length >= this.options.maxSize) this.#flush();
      else if (this.#timer === undefined && !this.#due) this.#timer = setTimeout(() => this.#flush(), this.options.maxWaitMs);
    });
  }

  #flush() {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#running < this.options.concurrency && this.#queue.length > 0) {
      void this.#run(this.#queue.splice(0, this.options.maxSize));
    }
    this.#due = this.#queue.length > 0;
  }

  async #run(batch: Waiting[]) {
    this.#running++;
    try {
      const outcomes = await this.write(batch.map((w) => w.input));
      batch.forEach((w, i) => w.settle(outcomes[i]!));
    } catch (error) {
      // recordEvents answers every event itself; this is only a guard against a bug leaving requests hanging
      const failure: EventOutcome = { ok: false, error: error instanceof AppError ? error : new AppError('internal', 'internal error') };
      for (const w of batch) w.settle(failure);
    } finally {
      this.#running--;
      if (this.#queue.length > 0 && (this.#due || this.#queue.length >= this.options.maxSize)) this.#flush();
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
