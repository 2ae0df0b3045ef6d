// The automatic retry schedule (only with WEBHOOK_AUTO_RETRY=true; SPEC: no automatic retry by
// default). Kept as data: the delay before attempt n+1 after attempt n failed.

export const RETRY_DELAYS_MS = [
  5_000, // 5 s
  5 * 60_000, // 5 min
  30 * 60_000, // 30 min
  2 * 3_600_000, // 2 h
  5 * 3_600_000, // 5 h
  10 * 3_600_000, // 10 h
  10 * 3_600_000, // 10 h
] as const;

/** Each delay is spread by up to this fraction either way, so failed bursts do not retry in lockstep. */
export const RETRY_JITTER = 0.2;

/**
 * Milliseconds to wait before the next attempt after attempt `attempt` (1-based) failed, or null
 * when the schedule is used up. `random` is in [0, 1).
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
}
