// The receipt and the notice of a refunded payment, for the customer who asked on the checkout.
import { type Chain, formatAmount, type PaymentState } from "@gateway/domain";
import type { MailMessage } from "../mail/mailer.js";
import { customerMail, dateText, type Line, txLine } from "./mail-lines.js";
import type { ReceiptKind } from "./receipt-rows.js";

export interface ReceiptInput {
  to: string;
  kind: ReceiptKind;
  merchantName: string;
  state: PaymentState;
  /** Chains whose transactions have a public explorer (those on mainnet). */
  publicChains: ReadonlySet<Chain>;
  at: Date;
}

/** `solana:<signature>:<instruction>` → the signature. */
const txidOf = (transferId: string) => transferId.split(":")[1] ?? transferId;

function receiptLines(input: ReceiptInput): Line[] {
  const { state } = input;
  const wallet = state.wallet;
  const lines: Line[] = [
    { label: "Merchant", value: input.merchantName },
    { label: "Amount", value: `${formatAmount(state.amount, state.currency)} ${state.currency}` },
  ];
  if (wallet) {
    lines.push({
      label: "Paid",
      value: `${formatAmount(wallet.amountDue, wallet.coin)} ${wallet.coin} on ${wallet.chain}`,
    });
    const transfers = state.transfers.filter((t) => t.status === "counted");
    for (const t of transfers)
      lines.push(txLine("Transaction", wallet.chain, txidOf(t.transferId), input.publicChains));
    if (state.overpaidAmount > 0n) {
      const surplus = `${formatAmount(state.overpaidAmount, wallet.coin)} ${wallet.coin}`;
      lines.push({ label: "Overpaid", value: `${surplus}, returned to you with a notice of its own` });
    }
  }
  if (state.simulated || state.mode === "test")
    lines.push({ label: "Transaction", value: "none: a test payment moves no funds" });
  lines.push({ label: "Date", value: dateText(input.at) }, { label: "Payment", value: state.id });
  return lines;
}

function refundLines(input: ReceiptInput): Line[] {
  const lines: Line[] = [{ label: "Merchant", value: input.merchantName }];
  for (const r of input.state.refunds) {
    lines.push({
      label: "Returned",
      value: `${formatAmount(r.amount, r.coin)} ${r.coin}${r.to ? ` to ${r.to}` : ""}`,
    });
    if (r.txid) lines.push(txLine("Transaction", r.chain, r.txid, input.publicChains));
    else if (r.simulated) lines.push({ label: "Transaction", value: "none: a test refund moves no funds" });
  }
  lines.push({ label: "Date", value: dateText(input.at) }, { label: "Payment", value: input.state.id });
  return lines;
}

export function receiptMail(input: ReceiptInput): MailMessage {
  const test = input.state.mode === "test" ? "[Test] " : "";
  const completed = input.kind === "completed";
  const amount = `${formatAmount(input.state.amount, input.state.currency)} ${input.state.currency}`;
  const subject = completed
    ? `${test}Your receipt from ${input.merchantName}: ${amount}`
    : `${test}Your payment to ${input.merchantName} was returned`;
  const intro = completed
    ? `Thank you for your payment to ${input.merchantName}. This is your receipt.`
    : `Your payment to ${input.merchantName} was not completed, and what you sent was returned.`;
  const lines = completed ? receiptLines(input) : refundLines(input);
  return customerMail(input.to, subject, intro, lines);
}
