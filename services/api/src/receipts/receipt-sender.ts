// Sends the receipts customers asked for: on `payment.completed` the receipt, on
// `payment.refunded` the notice. Runs in every API replica as one shared durable consumer of the
// events; a mail the SMTP server refused comes back with JetStream's growing delay.
import type { Bus, BusMessage, RunningConsumer } from "@gateway/bus";
import { isEventMessage } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import type { Chain } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import { findPayment, stateOf } from "@gateway/payments";
import { consumeEvents } from "../mail/event-consumer.js";
import type { Mailer } from "../mail/mailer.js";
import { receiptMail } from "./receipt-mail.js";
import { claimReceipt, markReceiptSent, type ReceiptKind, releaseReceipt } from "./receipt-rows.js";

export interface ReceiptSenderOptions {
  sql: Sql;
  bus: Bus;
  mailer: Mailer;
  log: Logger;
  /** Chains on mainnet, whose transactions a public explorer shows. */
  publicChains: ReadonlySet<Chain>;
  /** JetStream durable name, shared by every replica. */
  durable?: string;
}

/** The mail a payment status calls for, if the customer asked. */
const KIND_OF_STATUS: Partial<Record<string, ReceiptKind>> = { completed: "completed", refunded: "refunded" };

export class ReceiptSender {
  readonly #options: ReceiptSenderOptions;
  #consumer: RunningConsumer | undefined;

  constructor(options: ReceiptSenderOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    const { bus, log } = this.#options;
    // The payment events, of which two matter here.
    this.#consumer = await consumeEvents({
      bus,
      log,
      durable: this.#options.durable ?? "receipts",
      types: "payment.>",
      concurrency: 8,
      handle: (message) => this.#onEvent(message),
    });
  }

  async stop(): Promise<void> {
    await this.#consumer?.stop();
    this.#consumer = undefined;
  }

  /** The mail the payment's status calls for, now (a customer who gave the address after the event). */
  async sendDue(paymentId: string): Promise<void> {
    const row = await findPayment(this.#options.sql, { id: paymentId });
    const kind = row && KIND_OF_STATUS[row.status];
    if (kind) await this.#send(paymentId, kind);
  }

  async #onEvent(message: BusMessage<unknown>): Promise<void> {
    if (!isEventMessage(message.data)) return;
    const { event } = message.data;
    const paymentId = "payment" in event.data ? event.data.payment.id : undefined;
    const kind = KIND_OF_STATUS[event.type.replace("payment.", "")];
    if (paymentId && kind) await this.#send(paymentId, kind);
  }

  /** Claim, send, mark: a failed send gives the claim back and throws, so the event comes again. */
  async #send(paymentId: string, kind: ReceiptKind): Promise<void> {
    const { sql, mailer, log, publicChains } = this.#options;
    const to = await claimReceipt(sql, paymentId, kind);
    if (!to) return;
    try {
      const row = await findPayment(sql, { id: paymentId });
      if (!row) return;
      const [merchant] = await sql<{ business_name: string }[]>`
        select business_name from merchants where id = ${row.merchant_id}`;
      const merchantName = merchant?.business_name || "the shop";
      await mailer.send(
        receiptMail({ to, kind, merchantName, state: stateOf(row), publicChains, at: row.updated_at }),
      );
    } catch (err) {
      await releaseReceipt(sql, paymentId, kind);
      throw err;
    }
    await markReceiptSent(sql, paymentId, kind);
    log.info({ paymentId, kind }, "receipt sent");
  }
}

/** The chains this API's configuration declares on mainnet: their explorers show our transactions. */
export function mainnetChains(config: { SOLANA_NETWORK: string; SUI_NETWORK: string }): ReadonlySet<Chain> {
  const chains = new Set<Chain>();
  if (config.SOLANA_NETWORK === "mainnet") chains.add("solana");
  if (config.SUI_NETWORK === "mainnet") chains.add("sui");
  return chains;
}
