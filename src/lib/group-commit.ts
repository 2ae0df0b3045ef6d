// Group commit: items that arrive within a few milliseconds of each other are written together by one
// call of `write` (one transaction, one commit, one WAL flush), and each caller is answered once its
// batch is written. The event intake is the user (src/workflows/group-commit.ts binds it).

export type GroupCommitOptions = {
  /** Most items in one batch; a full batch leaves at once. */
  maxSize: number;
  /** How long the first item of a batch waits for company. */
  maxWaitMs: number;
  /** Lanes, each with at most one batch in flight. */
  concurrency: number;
};

export type GroupCommitWriter<I, O> = {
  /** Writes a batch; answers one outcome per item, in order. */
  write(items: I[]): Promise<O[]>;
  /** The lane key of an item: items with the same key share a lane, so they commit in arrival order. */
  laneKey(item: I): string;
  /** What every item of a batch is answered when `write` throws (it should not: a bug). */
  failed(error: unknown): O;
};

type Waiting<I, O> = { item: I; settle: (outcome: O) => void };

/**
 * Items with the same lane key always take the same lane. Two batches in flight thus never share a
 * key (for events, a user: they never wait for each other's user locks, and both cores of the
 * database work); and one lane runs one batch at a time, so a key's items commit in the order they came.
 */
export class GroupCommit<I, O> {
  readonly #lanes: Lane<I, O>[];
  readonly #writer: GroupCommitWriter<I, O>;

  constructor(writer: GroupCommitWriter<I, O>, options: GroupCommitOptions) {
    this.#writer = writer;
    this.#lanes = Array.from({ length: Math.max(1, options.concurrency) }, () => new Lane(writer, options));
  }

  /** Writes one item with whichever others arrive at about the same time. */
  record(item: I): Promise<O> {
    return this.#lanes[laneOf(this.#writer.laneKey(item), this.#lanes.length)]!.record(item);
  }
}

/** FNV-1a of the key: cheap, and the same lane for the same key in every process. */
function laneOf(key: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}

class Lane<I, O> {
  readonly #queue: Waiting<I, O>[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #busy = false;

  constructor(
    private readonly writer: GroupCommitWriter<I, O>,
    private readonly options: GroupCommitOptions,
  ) {}

  record(item: I): Promise<O> {
    return new Promise((settle) => {
      this.#queue.push({ item, settle });
      if (this.#queue.length >= this.options.maxSize) this.#flush();
      else this.#timer ??= setTimeout(() => this.#flush(), this.options.maxWaitMs);
    });
  }

  /** Sends the queued items (up to a batch) unless a batch is in flight; that one flushes when it ends. */
  #flush() {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#busy || this.#queue.length === 0) return;
    void this.#run(this.#queue.splice(0, this.options.maxSize));
  }

  async #run(batch: Waiting<I, O>[]) {
    this.#busy = true;
    try {
      const outcomes = await this.writer.write(batch.map((w) => w.item));
      batch.forEach((w, i) => w.settle(outcomes[i]!));
    } catch (error) {
      // the writer answers every item itself; this only keeps a bug from leaving callers hanging
      const failure = this.writer.failed(error);
      for (const w of batch) w.settle(failure);
    } finally {
      this.#busy = false;
      // what queued meanwhile has waited at least one batch's time: it goes now
      if (this.#queue.length > 0) this.#flush();
    }
  }
}
