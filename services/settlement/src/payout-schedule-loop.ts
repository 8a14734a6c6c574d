import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import { type PayoutSubjects, runDueSchedules } from "@gateway/payouts";

/**
 * Looks every `pollMs` for due payout schedules. The schedule's timer is `next_run_at` in
 * PostgreSQL (packages/payouts, payout-schedule.ts); this loop only looks at it.
 */
export class PayoutScheduleLoop {
  readonly #sql: Sql;
  readonly #log: Logger;
  readonly #subjects: PayoutSubjects;
  readonly #pollMs: number;
  #running = false;
  #timer: NodeJS.Timeout | undefined;
  #current: Promise<unknown> = Promise.resolve();

  constructor(options: { sql: Sql; log: Logger; subjects: PayoutSubjects; pollMs: number }) {
    this.#sql = options.sql;
    this.#log = options.log;
    this.#subjects = options.subjects;
    this.#pollMs = options.pollMs;
  }

  /** Runs the schedules due at `now`; returns how many payouts they created. */
  async runOnce(now = new Date()): Promise<number> {
    return (await runDueSchedules(this.#sql, this.#subjects, { now })).length;
  }

  start(): void {
    this.#running = true;
    this.#timer = setTimeout(() => void this.#tick(), 0);
  }

  /** Waits for a run under way. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#current;
  }

  async #tick(): Promise<void> {
    if (!this.#running) return;
    this.#current = this.runOnce().catch((err) =>
      this.#log.warn({ err }, "payout schedule run failed; will retry"),
    );
    await this.#current;
    if (this.#running) this.#timer = setTimeout(() => void this.#tick(), this.#pollMs);
  }
}
