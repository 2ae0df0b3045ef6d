// Where an import's time goes (bench/import.ts, `bun run import -- --timings`): the milliseconds
// spent per phase (reading the CSV, checking and mapping the rows, each write statement), summed
// over the run. Off unless asked for: the import passes no `PhaseTimes` then and times nothing.

export class PhaseTimes {
  readonly ms = new Map<string, number>();

  add(label: string, ms: number) {
    this.ms.set(label, (this.ms.get(label) ?? 0) + ms);
  }

  /** Awaits `work`, adding the time it took to `label`. */
  async time<T>(label: string, work: PromiseLike<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work;
    } finally {
      this.add(label, performance.now() - started);
    }
  }

  /** One line per label, slowest first: `label: 1.23 s`. */
  lines(): string[] {
    return [...this.ms].sort((a, b) => b[1] - a[1]).map(([label, ms]) => `${label}: ${(ms / 1000).toFixed(2)} s`);
  }
}

/** `work` timed under `label` when `times` is given, else just awaited. */
export function timed<T>(times: PhaseTimes | undefined, label: string, work: PromiseLike<T>): PromiseLike<T> {
  return times ? times.time(label, work) : work;
}
