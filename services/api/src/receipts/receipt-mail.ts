// The receipt and the refund notice a customer asked for on the checkout: text and the same in
// HTML, every value escaped. Transaction ids link to a public explorer on mainnet only.
import { type Chain, formatAmount, type PaymentState } from "@gateway/domain";
import { escapeHtml } from "@gateway/web-kit";
import type { MailMessage } from "../mail/mailer.js";
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

const EXPLORERS: Record<Chain, (txid: string) => string> = {
  solana: (txid) => `https://solscan.io/tx/${txid}`,
  sui: (txid) => `https://suiscan.xyz/mainnet/tx/${txid}`,
};

/** A line of the mail: its words, and the link its value may carry. */
interface Line {
  label: string;
  value: string;
  href?: string;
}

/** `solana:<signature>:<instruction>` → the signature. */
const txidOf = (transferId: string) => transferId.split(":")[1] ?? transferId;

function txLine(label: string, chain: Chain, txid: string, publicChains: ReadonlySet<Chain>): Line {
  return publicChains.has(chain)
    ? { label, value: txid, href: EXPLORERS[chain](txid) }
    : { label, value: txid };
}

const dateText = (at: Date) =>
  `${new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }).format(at)} UTC`;

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
  const text = [intro, "", ...lines.map((l) => `${l.label}: ${l.value}${l.href ? ` (${l.href})` : ""}`)].join(
    "\n",
  );
  const rows = lines
    .map((l) => {
      const value = l.href
        ? `<a href="${escapeHtml(l.href)}">${escapeHtml(l.value)}</a>`
        : escapeHtml(l.value);
      return `<tr><th align="left" style="padding:4px 12px 4px 0">${escapeHtml(l.label)}</th><td style="font-family:monospace">${value}</td></tr>`;
    })
    .join("\n");
  const html = `<!doctype html><html><body style="font-family:sans-serif">
<p>${escapeHtml(intro)}</p>
<table>
${rows}
</table>
</body></html>`;
  return { to: input.to, subject, text, html };
}
