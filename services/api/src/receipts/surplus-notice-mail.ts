// The notice of an overpayment's surplus sent back: the payment stands, only what was sent beyond
// the amount due was returned, so it says so rather than that the payment was refunded.
import { type Chain, formatAmount, type PaymentState, type RefundRecord } from "@gateway/domain";
import type { MailMessage } from "../mail/mailer.js";
import { customerMail, dateText, type Line, txLine } from "./mail-lines.js";

export interface SurplusNoticeInput {
  to: string;
  merchantName: string;
  state: PaymentState;
  refund: RefundRecord;
  /** Chains whose transactions have a public explorer (those on mainnet). */
  publicChains: ReadonlySet<Chain>;
  /** When the refund was sent. */
  at: Date;
}

export function surplusNoticeMail(input: SurplusNoticeInput): MailMessage {
  const { state, refund, merchantName } = input;
  const inCoin = (units: bigint) => `${formatAmount(units, refund.coin)} ${refund.coin}`;
  const surplus = inCoin(refund.amount);
  const test = state.mode === "test" ? "[Test] " : "";
  const due = state.wallet ? inCoin(state.wallet.amountDue) : undefined;
  const intro =
    `You sent ${merchantName} more than was due. Your overpayment of ${surplus} was returned to you` +
    (due ? `; your payment of ${due} stands.` : ".");
  const lines: Line[] = [
    { label: "Merchant", value: merchantName },
    ...(due ? [{ label: "Due", value: due }] : []),
    { label: "Received", value: `${inCoin(state.amountReceived)} on ${refund.chain}` },
    { label: "Returned", value: `${surplus}${refund.to ? ` to ${refund.to}` : ""}` },
    refund.txid
      ? txLine("Transaction", refund.chain, refund.txid, input.publicChains)
      : { label: "Transaction", value: "none: a test refund moves no funds" },
    { label: "Date", value: dateText(input.at) },
    { label: "Payment", value: state.id },
  ];
  return customerMail(
    input.to,
    `${test}Your overpayment of ${surplus} to ${merchantName} was returned`,
    intro,
    lines,
  );
}
