// What services send each other over NATS JetStream (docs/reliability.md). Every message has an
// id (Nats-Msg-Id, the outbox id) that its consumer records as handled, so a resend changes
// nothing. Field names are snake_case: the bodies are JSON and outlive a deploy in the streams.
import { isEventType } from "./event-types.js";
import type { Chain, Coin, Mode } from "./money.js";
import type { RefundReason, SimulatedOutcome } from "./statuses.js";
import type { GatewayEvent } from "./webhook-payloads.js";

/** The stages a watcher reports one transfer in: seen, then final or dropped. */
export const DEPOSIT_STAGES = ["seen", "final", "dropped"] as const;
export type DepositStage = (typeof DEPOSIT_STAGES)[number];

/**
 * A chain watcher → settlement, on `<p>.cmd.deposit.<chain>`: a transfer to an open deposit
 * address. Id: depositMessageId.
 */
export interface DepositReport {
  chain: Chain;
  address: string;
  /** `<chain>:<signature or digest>:<index>`, the same for every stage of one transfer. */
  transfer_id: string;
  coin: Coin;
  /** Base units, decimal string. */
  amount: string;
  sender: string;
  stage: DepositStage;
  /** Final reports: the watcher's signature over the transfer (signAttestation), base64. */
  attestation?: { key_id: string; signature: string };
}

/**
 * `<chain>:<tx>:<index>` for the final report, with `:seen` and `:dropped` suffixes for the other
 * stages, so each stage of each transfer is handled once.
 */
export function depositMessageId(report: Pick<DepositReport, "transfer_id" | "stage">): string {
  return report.stage === "final" ? report.transfer_id : `${report.transfer_id}:${report.stage}`;
}

/**
 * The API → settlement, on `<p>.cmd.payment.<type>`: a message for one payment actor (the
 * checkout page's test tools simulate outcomes). Settlement reads `message` with the domain's
 * deserializePaymentMessage, which checks it.
 */
export interface PaymentCommand {
  payment_id: string;
  message: { type: "simulate"; outcome: SimulatedOutcome };
}

/** A payment actor → settlement, on `<p>.cmd.settle.sweep`: move what was received to the vault. */
export interface SweepCommand {
  payment_id: string;
  mode: Mode;
  chain: Chain;
  coin: Coin;
  /** The deposit address to sweep. */
  address: string;
  /** Base units of `coin`, decimal string. */
  amount: string;
}

/** A payment actor → settlement, on `<p>.cmd.settle.refund`: send a refund to a transfer's sender. */
export interface RefundCommand {
  payment_id: string;
  mode: Mode;
  refund_id: string;
  kind: RefundReason;
  chain: Chain;
  coin: Coin;
  /** Base units of `coin`, decimal string. */
  amount: string;
  to: string;
  /** deposit: the funds still sit on the deposit address; vault: they were swept with the payment. */
  from: "deposit" | "vault";
  transfer_id: string | null;
  /** The watcher's attestation of the refunded transfer; absent in messages from before attestations. */
  attestation?: { keyId: string; signature: string } | null;
  /** The whole refunded transfer, base units, decimal string. */
  transfer_amount?: string | null;
}

/**
 * A payment actor → the API's receipt sender, on `<p>.cmd.mail.refund`: one refund was sent, of
 * which the customer hears on its own (a surplus; no payment event announces it). Id:
 * `refund-notice:<refund id>`. Sent whether or not the customer left an address.
 */
export interface RefundNoticeCommand {
  payment_id: string;
  refund_id: string;
  /** When the refund was recorded as sent, ISO 8601. */
  sent_at: string;
}

export function isRefundNoticeCommand(value: unknown): value is RefundNoticeCommand {
  const m = value as RefundNoticeCommand | null;
  return (
    typeof m === "object" &&
    m !== null &&
    typeof m.payment_id === "string" &&
    typeof m.refund_id === "string" &&
    typeof m.sent_at === "string"
  );
}

/** The API or the payout schedule → settlement, on `<p>.cmd.payout.<chain>`: execute the payout. */
export interface PayoutCommand {
  payout_id: string;
}

/**
 * Payments and payouts → the notifier, on `<p>.events.<type>` (through the outbox): an event for
 * every endpoint of the merchant in that mode subscribed to its type.
 */
export interface EventMessage {
  merchant_id: string;
  mode: Mode;
  /** Exactly the body POSTed to the merchant. */
  event: GatewayEvent;
}

export function isEventMessage(value: unknown): value is EventMessage {
  const m = value as EventMessage | null;
  return (
    typeof m === "object" &&
    m !== null &&
    typeof m.merchant_id === "string" &&
    (m.mode === "test" || m.mode === "live") &&
    typeof m.event === "object" &&
    m.event !== null &&
    typeof m.event.id === "string" &&
    isEventType(m.event.type)
  );
}
