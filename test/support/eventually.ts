// Waiting on a condition instead of sleeping: `eventually` runs an assertion until it passes and
// answers what it returned. Once the deadline has passed it fails with the assertion's last error.
// The deadline only bounds a broken run (a passing one never waits for it), so it is generous; no
// test asserts how fast something happened. The default stays under bun's 5 s limit per test, so a
// failure shows the assertion rather than a timeout; a test given a longer limit may pass a longer one.
export type EventuallyOptions = {
  /** Give up after this many ms (4 s unless told). */
  timeout?: number;
  /** Pause between tries, in ms. */
  interval?: number;
};

export async function eventually<T>(assertion: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  const { timeout = 4_000, interval = 20 } = options;
  const deadline = performance.now() + timeout;
  for (;;) {
    let result: T;
    try {
      result = await assertion();
    } catch (error) {
      if (performance.now() < deadline) {
        await Bun.sleep(interval);
        continue;
      }
      if (error instanceof Error) error.message = `still failing after ${timeout} ms: ${error.message}`;
      throw error;
    }
    // `eventually(async () => rows.length === 2)` would pass at once: the assertion must throw (expect)
    if (typeof result === 'boolean') throw new TypeError('eventually: assert with expect() instead of answering a boolean');
    return result;
  }
}
