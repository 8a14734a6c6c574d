// Owners hear of the day's scheduled payout on its first event (a member's own request is mailed
// as it is asked): one shared durable consumer over every API replica, the notice taken in
// PostgreSQL first so a redelivery or a later event never mails it twice.
import type { Bus, BusMessage, RunningConsumer } from "@gateway/bus";
import { isEventMessage } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import { consumeEvents } from "../mail/event-consumer.js";
import type { Mailer } from "../mail/mailer.js";
import { payoutRequestedMail } from "../mail/messages.js";
import { mailOwners } from "./second-factor.js";

export interface ScheduledPayoutNoticesOptions {
  sql: Sql;
  bus: Bus;
  mailer: Mailer;
  log: Logger;
  /** JetStream durable name, shared by every replica. */
  durable?: string;
}

export class ScheduledPayoutNotices {
  readonly #options: ScheduledPayoutNoticesOptions;
  #consumer: RunningConsumer | undefined;

  constructor(options: ScheduledPayoutNoticesOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    const { bus, log } = this.#options;
    this.#consumer = await consumeEvents({
      bus,
      log,
      durable: this.#options.durable ?? "payout-owner-notices",
      types: "payout.>",
      concurrency: 4,
      handle: (message) => this.#onEvent(message),
    });
  }

  async stop(): Promise<void> {
    await this.#consumer?.stop();
    this.#consumer = undefined;
  }

  async #onEvent(message: BusMessage<unknown>): Promise<void> {
    if (!isEventMessage(message.data)) return;
    const { merchant_id: merchantId, event } = message.data;
    const payout = "payout" in event.data ? event.data.payout : undefined;
    if (payout?.kind !== "scheduled" || !(await this.#take(payout.id))) return;
    await mailOwners(this.#options, merchantId, (to) =>
      payoutRequestedMail(to, { actor: "The daily payout schedule", ...payout }),
    );
  }

  /** True for the first taker of a payout's notice only. */
  async #take(payoutId: string): Promise<boolean> {
    const taken = await this.#options.sql`
      insert into payout_owner_notices (payout_id) values (${payoutId})
      on conflict (payout_id) do nothing returning payout_id`;
    return taken.length > 0;
  }
}
