import { setTimeout as sleep } from "node:timers/promises";

/** Error codes that mean the database could not be reached or went away (restart, failover). */
const UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  // admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down)
  "57P01",
  "57P02",
  "57P03",
]);

export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && UNAVAILABLE.has(code);
}

/**
 * Runs `work` again while the database is unavailable, for up to `retryMs`. Only for work that
 * is safe to repeat even if an attempt that failed had in fact committed (an insert of a row
 * whose id was fixed before the first attempt, with `on conflict do nothing`).
 */
export async function retryWhileUnavailable<T>(work: () => Promise<T>, retryMs = 10_000): Promise<T> {
  const deadline = Date.now() + retryMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || Date.now() >= deadline) throw err;
      await sleep(Math.min(100 * 2 ** attempt, 1000));
    }
  }
}
