import type { Logger } from "@gateway/logging";
import type { DeliveryOutcome } from "./delivery-rows.js";

/**
 * Attempts' outcomes, written by one writer at a time: while a batch is written the next ones
 * gather, so the database sees one transaction per batch rather than one per attempt.
 */
export class OutcomeBatcher {
  readonly #write: (batch: DeliveryOutcome[]) => Promise<void>;
  readonly #log: Logger;
  #pending: DeliveryOutcome[] = [];
  #flushing: Promise<void> | undefined;

  constructor(write: (batch: DeliveryOutcome[]) => Promise<void>, log: Logger) {
    this.#write = write;
    this.#log = log;
  }

  /** Outcomes not yet written. */
  get unwritten(): number {
    return this.#pending.length;
  }

  add(outcome: DeliveryOutcome): void {
    this.#pending.push(outcome);
    this.#scheduleFlush();
  }

  /** True once every outcome is written; false if writing still goes on after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<boolean> {
    const flushed = (async () => {
      while (this.#flushing) await this.#flushing;
    })();
    const gaveUp = await Promise.race([
      flushed.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), timeoutMs).unref()),
    ]);
    return !gaveUp;
  }

  #scheduleFlush(): void {
    if (this.#flushing) return;
    this.#flushing = this.#flush().finally(() => {
      this.#flushing = undefined;
      // Outcomes added between the last write and this moment.
      if (this.#pending.length > 0) this.#scheduleFlush();
    });
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      try {
        await this.#write(batch);
      } catch (err) {
        // Keep them; the lease covers a short database outage.
        this.#log.warn({ err, count: batch.length }, "writing delivery outcomes failed; will retry");
        this.#pending = batch.concat(this.#pending);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }
}
