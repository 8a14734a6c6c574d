// The notice of a refund sent while the payment stands: an overpayment's surplus, or a transfer
// that came late. It says what went back, rather than that the payment was refunded.
import { type Chain, formatAmount, type PaymentState, type RefundRecord } from "@gateway/domain";
import type { MailMessage } from "../mail/mailer.js";
import { customerMail, dateText, type Line, txLine } from "./mail-lines.js";

export interface RefundNoticeInput {
  to: string;
  merchantName: string;
  state: PaymentState;
  refund: RefundRecord;
  /** Chains whose transactions have a public explorer (those on mainnet). */
  publicChains: ReadonlySet<Chain>;
  /** When the refund was sent. */
  at: Date;
}

export function refundNoticeMail(input: RefundNoticeInput): MailMessage {
  const { state, refund, merchantName } = input;
  const returned = `${formatAmount(refund.amount, refund.coin)} ${refund.coin}`;
  const test = state.mode === "test" ? "[Test] " : "";
  const late = refund.kind === "late";
  const lines: Line[] = [
    { label: "Merchant", value: merchantName },
    ...(late ? [] : amountLines(state, refund)),
    { label: "Returned", value: `${returned}${refund.to ? ` to ${refund.to}` : ""}` },
    refund.txid
      ? txLine("Transaction", refund.chain, refund.txid, input.publicChains)
      : { label: "Transaction", value: "none: a test refund moves no funds" },
    { label: "Date", value: dateText(input.at) },
    { label: "Payment", value: state.id },
  ];
  return late
    ? customerMail(
        input.to,
        `${test}Your transfer of ${returned} to ${merchantName} was returned`,
        `Your transfer of ${returned} reached ${merchantName} after the payment was closed, so it was returned to you.`,
        lines,
      )
    : customerMail(
        input.to,
        `${test}Your overpayment of ${returned} to ${merchantName} was returned`,
        `You sent ${merchantName} more than was due. Your overpayment of ${returned} was returned to you` +
          (state.wallet ? `; your payment of ${inCoin(state.wallet.amountDue, refund)} stands.` : "."),
        lines,
      );
}

const inCoin = (units: bigint, refund: RefundRecord) => `${formatAmount(units, refund.coin)} ${refund.coin}`;

/** What was due and received, beside a surplus. */
function amountLines(state: PaymentState, refund: RefundRecord): Line[] {
  return [
    ...(state.wallet ? [{ label: "Due", value: inCoin(state.wallet.amountDue, refund) }] : []),
    { label: "Received", value: `${inCoin(state.amountReceived, refund)} on ${refund.chain}` },
  ];
}
