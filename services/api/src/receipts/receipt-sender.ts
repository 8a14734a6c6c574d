// Sends the receipts customers asked for: on `payment.completed` the receipt, on
// `payment.refunded` the notice, and on a surplus refund sent (`<p>.cmd.mail.refund`, no payment
// event announces it) its own notice. Runs in every API replica as two shared durable consumers;
// a mail the SMTP server refused comes back with JetStream's growing delay.
import { type Bus, type BusMessage, type RunningConsumer, startConsumer } from "@gateway/bus";
import { isEventMessage, isRefundNoticeCommand } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import { type Chain, hasOwnNotice, type PaymentState, type RefundRecord } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import { findPayment, type PaymentRow, stateOf } from "@gateway/payments";
import { consumeEvents } from "../mail/event-consumer.js";
import type { Mailer, MailMessage } from "../mail/mailer.js";
import { receiptMail } from "./receipt-mail.js";
import { claimReceipt, markReceiptSent, type ReceiptKind, releaseReceipt } from "./receipt-rows.js";
import { refundNoticeMail } from "./refund-notice-mail.js";
import { claimRefundNotice, markRefundNoticeSent, releaseRefundNotice } from "./refund-notice-rows.js";

export interface ReceiptSenderOptions {
  sql: Sql;
  bus: Bus;
  mailer: Mailer;
  log: Logger;
  /** Chains on mainnet, whose transactions a public explorer shows. */
  publicChains: ReadonlySet<Chain>;
  /** JetStream durable names, shared by every replica: of the events, of the refund notices. */
  durable?: string;
  noticesDurable?: string;
}

/** One mail's claim, sending and mark: what the receipts and the refund notices share. */
interface Delivery {
  claim(): Promise<string | undefined>;
  mail(to: string): Promise<MailMessage | undefined>;
  mark(): Promise<void>;
  release(): Promise<void>;
}

/** A refund whose own notice is due: one of those that have one, sent (or simulated). */
const isNoticeDue = (refund: RefundRecord) =>
  hasOwnNotice(refund) && (refund.simulated || refund.txid !== null);

/** The mail a payment status calls for, if the customer asked. */
const KIND_OF_STATUS: Partial<Record<string, ReceiptKind>> = { completed: "completed", refunded: "refunded" };

export class ReceiptSender {
  readonly #options: ReceiptSenderOptions;
  #consumers: RunningConsumer[] = [];

  constructor(options: ReceiptSenderOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    const { bus, log } = this.#options;
    // The payment events, of which two matter here.
    this.#consumers.push(
      await consumeEvents({
        bus,
        log,
        durable: this.#options.durable ?? "receipts",
        types: "payment.>",
        concurrency: 8,
        handle: (message) => this.#onEvent(message),
      }),
    );
    this.#consumers.push(
      await startConsumer<unknown>({
        js: bus.js,
        jsm: bus.jsm,
        log,
        stream: bus.topology.streams.commands,
        durable: this.#options.noticesDurable ?? "refund-notices",
        filterSubjects: [bus.topology.subjects.mail("refund")],
        concurrency: 8,
        handle: (message) => this.#onRefundNotice(message),
      }),
    );
  }

  async stop(): Promise<void> {
    const consumers = this.#consumers;
    this.#consumers = [];
    for (const consumer of consumers) await consumer.stop();
  }

  /**
   * The mails the payment calls for, now (a customer who gave the address after their events):
   * the one of its status, then the notice of each surplus or late transfer already returned.
   */
  async sendDue(paymentId: string): Promise<void> {
    const row = await findPayment(this.#options.sql, { id: paymentId });
    if (!row) return;
    const kind = KIND_OF_STATUS[row.status];
    if (kind) await this.#send(paymentId, kind);
    // A refunded payment's mail lists every refund it had.
    if (row.status === "refunded") return;
    for (const refund of stateOf(row).refunds.filter(isNoticeDue)) {
      await this.#sendRefundNotice(paymentId, refund.refundId, row.updated_at);
    }
  }

  async #onEvent(message: BusMessage<unknown>): Promise<void> {
    if (!isEventMessage(message.data)) return;
    const { event } = message.data;
    const paymentId = "payment" in event.data ? event.data.payment.id : undefined;
    const kind = KIND_OF_STATUS[event.type.replace("payment.", "")];
    if (paymentId && kind) await this.#send(paymentId, kind);
  }

  async #onRefundNotice(message: BusMessage<unknown>): Promise<void> {
    const command = message.data;
    if (!isRefundNoticeCommand(command)) {
      this.#options.log.warn({ messageId: message.id }, "refund notice command malformed; dropped");
      return;
    }
    await this.#sendRefundNotice(command.payment_id, command.refund_id, new Date(command.sent_at));
  }

  async #send(paymentId: string, kind: ReceiptKind): Promise<void> {
    const { sql, publicChains } = this.#options;
    const sent = await this.#deliver({
      claim: () => claimReceipt(sql, paymentId, kind),
      mail: async (to) => {
        const found = await this.#payment(paymentId);
        if (!found) return undefined;
        const { row, state, merchantName } = found;
        return receiptMail({ to, kind, merchantName, state, publicChains, at: row.updated_at });
      },
      mark: () => markReceiptSent(sql, paymentId, kind),
      release: () => releaseReceipt(sql, paymentId, kind),
    });
    if (sent) this.#options.log.info({ paymentId, kind }, "receipt sent");
  }

  /** The notice of one refund with a notice of its own, once sent (or simulated), to the address left. */
  async #sendRefundNotice(paymentId: string, refundId: string, at: Date): Promise<void> {
    const { sql, publicChains } = this.#options;
    const sent = await this.#deliver({
      claim: () => claimRefundNotice(sql, paymentId, refundId),
      mail: async (to) => {
        const found = await this.#payment(paymentId);
        const refund = found?.state.refunds.find((r) => r.refundId === refundId);
        if (!found || !refund || !isNoticeDue(refund)) return undefined;
        const { state, merchantName } = found;
        return refundNoticeMail({ to, merchantName, state, refund, publicChains, at });
      },
      mark: () => markRefundNoticeSent(sql, refundId),
      release: () => releaseRefundNotice(sql, refundId),
    });
    if (sent) this.#options.log.info({ paymentId, refundId }, "refund notice sent");
  }

  /**
   * Claim, send, mark; true if sent. Nothing to send gives the claim back; a failed send gives it
   * back and throws, so the message comes again.
   */
  async #deliver(delivery: Delivery): Promise<boolean> {
    const to = await delivery.claim();
    if (!to) return false;
    let mail: MailMessage | undefined;
    try {
      mail = await delivery.mail(to);
      if (mail) await this.#options.mailer.send(mail);
    } catch (err) {
      await delivery.release();
      throw err;
    }
    if (!mail) {
      await delivery.release();
      return false;
    }
    await delivery.mark();
    return true;
  }

  async #payment(
    paymentId: string,
  ): Promise<{ row: PaymentRow; state: PaymentState; merchantName: string } | undefined> {
    const { sql } = this.#options;
    const row = await findPayment(sql, { id: paymentId });
    if (!row) return undefined;
    const [merchant] = await sql<{ business_name: string }[]>`
      select business_name from merchants where id = ${row.merchant_id}`;
    return { row, state: stateOf(row), merchantName: merchant?.business_name || "the shop" };
  }
}

/** The chains this API's configuration declares on mainnet: their explorers show our transactions. */
export function mainnetChains(config: { SOLANA_NETWORK: string; SUI_NETWORK: string }): ReadonlySet<Chain> {
  const chains = new Set<Chain>();
  if (config.SOLANA_NETWORK === "mainnet") chains.add("solana");
  if (config.SUI_NETWORK === "mainnet") chains.add("sui");
  return chains;
}
