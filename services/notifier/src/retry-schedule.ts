/**
 * Delay after the n-th failed attempt (docs/webhooks.md, "Delivery and retries"): ~10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h,
 * then every 24 h, until the retry window (3 days from the delivery's creation) is over.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  10_000,
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  24 * 3_600_000,
];

export const DEFAULT_RETRY_WINDOW_MS = 3 * 24 * 3_600_000;

/** The wait after `failedAttempts` failures (1-based); past the list, its last entry repeats. */
export function retryDelayMs(failedAttempts: number, schedule: readonly number[]): number {
  if (schedule.length === 0) throw new Error("retry schedule is empty");
  const index = Math.min(Math.max(failedAttempts, 1), schedule.length) - 1;
  return schedule[index]!;
}

/**
 * When to try again after a failure at `now`, or undefined when the next attempt would fall past
 * `retryUntil` and the delivery is given up as failed.
 */
export function nextAttemptAt(
  failedAttempts: number,
  now: Date,
  retryUntil: Date,
  schedule: readonly number[],
): Date | undefined {
  const next = new Date(now.getTime() + retryDelayMs(failedAttempts, schedule));
  return next.getTime() > retryUntil.getTime() ? undefined : next;
}
