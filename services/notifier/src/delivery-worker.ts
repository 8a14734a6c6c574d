import { randomUUID } from "node:crypto";
import { wakeablePause } from "@gateway/bus";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import {
  type ClaimedDelivery,
  cancelDeliveries,
  claimDueDeliveries,
  isSuccess,
  recordOutcomes,
  releaseDeliveries,
} from "./delivery-rows.js";
import { DeliverySender } from "./delivery-sender.js";
import { EndpointSlots } from "./endpoint-slots.js";
import type { WebhookHttpClient } from "./http-post.js";
import { OutcomeBatcher } from "./outcome-batcher.js";

export interface DeliveryWorkerOptions {
  sql: Sql;
  log: Logger;
  http: WebhookHttpClient;
  secretKey: Buffer;
  allowPrivate: boolean;
  /** Per attempt, connect to last byte. */
  timeoutMs: number;
  retrySchedule: readonly number[];
  /** Attempts in flight in this process, all endpoints together. */
  concurrency: number;
  /** Attempts in flight to one endpoint, so a slow endpoint can hold only this many slots. */
  endpointConcurrency: number;
  /** Fallback poll when no NOTIFY arrives; also the pace at which retries fall due. */
  pollMs: number;
}

/** Most deliveries one claim takes. */
const MAX_CLAIM = 512;
/** How long a stop waits for outcomes to be written before leaving them to the leases. */
const STOP_WRITE_MS = 10_000;

/** What the ingest needs to insert deliveries already claimed for this worker. */
export interface DeliveryClaim {
  token: string;
  leaseMs: number;
}

/**
 * Claims due deliveries with FOR UPDATE SKIP LOCKED (any number of replicas), pushes their
 * next_attempt_at ahead by a lease while the attempt runs, and writes each outcome with its next
 * due time. New deliveries may come in claimed already from the ingest (`reserve`, then
 * `startReserved`). The schedule lives only in PostgreSQL: a stopped or crashed worker loses nothing.
 */
export class DeliveryWorker {
  readonly #options: DeliveryWorkerOptions;
  /** Long enough for the attempt and the write of its outcome; after it, another worker may retry. */
  readonly #leaseMs: number;
  /** Marks this worker's claims: a release or an outcome applies only to rows it still holds. */
  readonly #token = randomUUID();
  /** Fewest free slots worth a claim while attempts are in flight. */
  readonly #minClaim: number;
  readonly #sender: DeliverySender;
  readonly #outcomes: OutcomeBatcher;
  readonly #slots: EndpointSlots;
  readonly #inFlight = new Set<Promise<void>>();
  /** Slots taken by `reserve` for deliveries being inserted, not yet started. */
  #reserved = 0;
  readonly #idle = wakeablePause();
  #running = false;
  #loop: Promise<void> | undefined;
  #unlisten: (() => Promise<void>) | undefined;
  /** The last pass left due work behind, so a freed slot should wake the loop. */
  #backlog = false;
  /** A wake-up that came while a pass ran, when there was no pause yet to cut short. */
  #woken = false;
  #lastPassAt = Date.now();
  #attempted = 0;
  #succeeded = 0;

  constructor(options: DeliveryWorkerOptions) {
    const { sql, log, http, secretKey, allowPrivate, timeoutMs, retrySchedule } = options;
    this.#options = options;
    this.#leaseMs = timeoutMs * 2 + 30_000;
    this.#minClaim = Math.ceil(options.concurrency / 8);
    this.#sender = new DeliverySender({ http, secretKey, allowPrivate, timeoutMs });
    this.#outcomes = new OutcomeBatcher((batch) => recordOutcomes(sql, batch, retrySchedule), log);
    this.#slots = new EndpointSlots(options.endpointConcurrency);
  }

  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    const listener = await this.#options.sql.listen("webhook_deliveries", () => this.#poke());
    this.#unlisten = listener.unlisten;
    this.#lastPassAt = Date.now();
    this.#loop = this.#run();
  }

  /** Stops claiming, waits for the attempts in flight and, for a while, for their outcomes' writes. */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#poke();
    await this.#loop;
    await Promise.allSettled([...this.#inFlight]);
    // Outcomes not written in time (database down) are left to the leases: those attempts will be
    // made again, which receivers absorb by de-duplicating on the event id.
    if (!(await this.#outcomes.drain(STOP_WRITE_MS))) {
      this.#options.log.warn(
        { unwritten: this.#outcomes.unwritten },
        "stopping with delivery outcomes not recorded",
      );
    }
    await this.#unlisten?.().catch(() => {});
  }

  /** Throws when the loop has not completed a pass recently (stuck, or the database is gone). */
  checkHealth(): void {
    if (!this.#running) throw new Error("delivery worker not running");
    const stale = Date.now() - this.#lastPassAt;
    if (stale > Math.max(this.#options.pollMs * 10, 30_000))
      throw new Error(`no delivery pass for ${stale} ms`);
  }

  /** The claim token and lease with which the ingest inserts the deliveries it reserved. */
  get claim(): DeliveryClaim {
    return { token: this.#token, leaseMs: this.#leaseMs };
  }

  /**
   * A slot for each new delivery this worker can attempt at once (a flag per endpoint id); none while
   * due work waits, so new events do not pass older ones. One without a slot is inserted due now.
   */
  reserve(endpointIds: string[]): boolean[] {
    return endpointIds.map((endpointId) => {
      if (!this.#running || this.#backlog || !this.#hasRoom()) return false;
      if (this.#slots.inUse(endpointId) >= this.#slots.limit) return false;
      this.#slots.take(endpointId);
      this.#reserved++;
      return true;
    });
  }

  /** Gives back reserved slots whose delivery was not inserted (it existed already). */
  unreserve(endpointIds: string[]): void {
    for (const endpointId of endpointIds) {
      this.#slots.give(endpointId);
      this.#reserved--;
    }
  }

  /** Attempts reserved deliveries the ingest inserted under `claim`; stopped, it leaves them to the lease. */
  startReserved(rows: ClaimedDelivery[]): void {
    this.#reserved -= rows.length;
    for (const row of rows) {
      if (this.#running) this.#launch(row);
      else this.#slots.give(row.endpoint_id);
    }
  }

  stats(): { inFlight: number; attempted: number; succeeded: number } {
    return { inFlight: this.#inFlight.size, attempted: this.#attempted, succeeded: this.#succeeded };
  }

  #poke(): void {
    this.#woken = true;
    this.#idle.wake();
  }

  async #run(): Promise<void> {
    const { pollMs, concurrency } = this.#options;
    let failures = 0;
    while (this.#running) {
      this.#woken = false;
      try {
        await this.#pass();
        this.#lastPassAt = Date.now();
        failures = 0;
      } catch (err) {
        failures++;
        if (failures === 1 || failures % 20 === 0)
          this.#options.log.warn({ err, failures }, "delivery claim failed");
      }
      if (!this.#running) break;
      const full = concurrency - this.#inFlight.size - this.#reserved < this.#minClaim;
      // With a backlog and room, go again at once; otherwise sleep until NOTIFY, a freed slot or the poll.
      if (this.#backlog && !full && failures === 0) continue;
      if (this.#woken && failures === 0) {
        this.#woken = false;
        continue;
      }
      await this.#idle.pause(failures > 0 ? Math.min(pollMs * 2 ** failures, 5_000) : pollMs);
    }
  }

  async #pass(): Promise<void> {
    const { sql, concurrency } = this.#options;
    const free = concurrency - this.#inFlight.size - this.#reserved;
    // Claim in batches: one query per freed slot would cost more than the attempts themselves.
    if (free <= 0 || (this.#inFlight.size + this.#reserved > 0 && free < this.#minClaim)) return;
    const limit = Math.min(free, MAX_CLAIM);
    const token = this.#token;
    const claimed = await claimDueDeliveries(sql, {
      token,
      leaseMs: this.#leaseMs,
      limit,
      skipEndpoints: this.#slots.full(),
    });
    this.#backlog = claimed.length === limit;
    const { toRelease, toCancel } = this.#dispatch(claimed);
    await Promise.all([releaseDeliveries(sql, token, toRelease), cancelDeliveries(sql, token, toCancel)]);
    if (toRelease.length > 0) this.#backlog = true;
  }

  /** Starts the attempts the endpoints' shares allow; returns the rest, to give back or cancel. */
  #dispatch(claimed: ClaimedDelivery[]): { toRelease: ClaimedDelivery[]; toCancel: ClaimedDelivery[] } {
    const toRelease: ClaimedDelivery[] = [];
    const toCancel: ClaimedDelivery[] = [];
    for (const row of claimed) {
      if (row.deleted) {
        toCancel.push(row);
        continue;
      }
      // Each started attempt takes its slot at once, so the count already includes this pass's; the
      // ingest may have reserved slots while the claim was on its way, hence the total again.
      if (this.#slots.inUse(row.endpoint_id) >= this.#slots.limit || !this.#hasRoom()) {
        toRelease.push(row);
        continue;
      }
      this.#startAttempt(row);
    }
    return { toRelease, toCancel };
  }

  #hasRoom(): boolean {
    return this.#inFlight.size + this.#reserved < this.#options.concurrency;
  }

  #startAttempt(row: ClaimedDelivery): void {
    this.#slots.take(row.endpoint_id);
    this.#launch(row);
  }

  /** Runs the attempt in the endpoint slot already taken for it, and frees the slot after. */
  #launch(row: ClaimedDelivery): void {
    const task = this.#attempt(row).finally(() => {
      this.#inFlight.delete(task);
      this.#slots.give(row.endpoint_id);
      // A freed slot matters only when due work was left behind.
      if (this.#backlog) this.#poke();
    });
    this.#inFlight.add(task);
  }

  async #attempt(row: ClaimedDelivery): Promise<void> {
    const startedAt = new Date();
    const result = await this.#sender.send(row, startedAt);
    this.#attempted++;
    if (isSuccess(result.statusCode)) this.#succeeded++;
    this.#outcomes.add({
      id: row.id,
      token: this.#token,
      attempt: row.attempts + 1,
      startedAt,
      result,
      retryUntil: row.retry_until,
    });
  }
}
