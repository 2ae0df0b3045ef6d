// Group commit of the HTTP intake: concurrent POST /v1/events and /attribution/events requests are
// gathered for a few milliseconds and written by recordEvents in one transaction, so that many
// events share one commit (one WAL flush) instead of paying one each (src/lib/group-commit.ts). Each
// request is answered only once its batch has committed. One per process: createContext makes it
// (ctx.intake), shared by the unprefixed and the /v1 routes.
import type { Config } from '../config';
import type { AppContext } from '../context';
import { AppError } from '../lib/errors';
import type { Logger } from '../lib/log';
import { GroupCommit } from '../lib/group-commit';
import type { EventInput, EventOutcome, RecordedEvent } from '../modules/events/intake';

/**
 * The process's intake, writing each batch with `write` (createContext passes recordEvents bound to
 * the context). A user's events always take the same lane, so two batches in flight never wait for
 * each other's user locks, and a user's events commit in the order they came.
 */
export function createEventIntake(
  deps: { config: Pick<Config, 'eventBatch'>; log: Logger },
  write: (inputs: EventInput[]) => Promise<EventOutcome[]>,
): GroupCommit<EventInput, EventOutcome> {
  return new GroupCommit<EventInput, EventOutcome>(
    {
      write,
      laneKey: (input) => input.userId,
      failed(error) {
        // recordEvents answers every event itself: this is a bug, and its cause must not be lost
        deps.log.error('event batch failed unexpectedly', { error });
        return { ok: false, error: error instanceof AppError ? error : new AppError('internal', 'internal error') };
      },
    },
    deps.config.eventBatch,
  );
}

/** Records one event through the group commit; a failed event throws its error. */
export async function recordThroughGroupCommit(ctx: AppContext, input: EventInput): Promise<RecordedEvent> {
  const outcome = await ctx.intake.record(input);
  if (!outcome.ok) throw outcome.error;
  return outcome.recorded;
}
