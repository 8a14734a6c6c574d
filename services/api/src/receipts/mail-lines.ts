// What every customer mail is made of: an introduction and lines of label and value, as text and
// the same in HTML, every value escaped. Transaction ids link to a public explorer on mainnet only.
import type { Chain } from "@gateway/domain";
import { escapeHtml } from "@gateway/web-kit";
import type { MailMessage } from "../mail/mailer.js";

/** A line of the mail: its words, and the link its value may carry. */
export interface Line {
  label: string;
  value: string;
  href?: string;
}

const EXPLORERS: Record<Chain, (txid: string) => string> = {
  solana: (txid) => `https://solscan.io/tx/${txid}`,
  sui: (txid) => `https://suiscan.xyz/mainnet/tx/${txid}`,
};

export function txLine(label: string, chain: Chain, txid: string, publicChains: ReadonlySet<Chain>): Line {
  return publicChains.has(chain)
    ? { label, value: txid, href: EXPLORERS[chain](txid) }
    : { label, value: txid };
}

export const dateText = (at: Date) =>
  `${new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }).format(at)} UTC`;

export function customerMail(to: string, subject: string, intro: string, lines: Line[]): MailMessage {
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
  return { to, subject, text, html };
}
