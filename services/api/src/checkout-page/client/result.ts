// The last step: how the payment ended, any refunds, and the way back to the shop.
import { ui } from "./elements.js";
import { REFUND_REASON_LABELS } from "./labels.js";
import { state } from "./state.js";
import type { CheckoutView } from "./types.js";

const REDIRECT_DELAY_MS = 3000;

export function fillResult(view: CheckoutView): void {
  const merchant = view.merchant_name || "the shop";
  const amount = `${view.amount} ${view.currency}`;
  let title: string;
  let text: string;
  let tone = "bad";
  switch (view.status) {
    case "completed":
      tone = "ok";
      title = "Paid";
      text = safeRedirect(view.redirect_url)
        ? `${merchant} has received your payment of ${amount}.`
        : `${merchant} has received your payment of ${amount}. You can close this page.`;
      break;
    case "underpaid":
      title = "Payment incomplete";
      text =
        "Less than the amount due arrived before the payment expired. What was received is being returned.";
      break;
    case "refunded":
      title = "Payment returned";
      text = "This payment was not completed, and the funds received were returned to the sender.";
      break;
    case "expired":
      title = "Payment expired";
      text = `Nothing was charged. Ask ${merchant} for a new payment link if you still want to pay.`;
      break;
    default:
      title = "Payment could not be completed";
      text = `Our team has been alerted. Please contact ${merchant} with this page's address.`;
  }
  ui.steps.result.dataset.tone = tone;
  ui.resultTitle.textContent = title;
  ui.resultText.textContent = text;

  const refunds = view.refunds ?? [];
  ui.refunds.hidden = refunds.length === 0;
  ui.refunds.replaceChildren(
    ...refunds.map((r) => {
      const item = document.createElement("li");
      const reason = REFUND_REASON_LABELS[r.reason] ?? "Refund";
      item.textContent = `${reason}: ${r.amount} ${r.coin} (${r.status === "sent" ? "sent" : "being sent"})`;
      return item;
    }),
  );

  if (view.status === "completed") scheduleRedirect(view.redirect_url);
}

/** Only http(s) targets: a `javascript:` URL stored by a merchant must never run here. */
function safeRedirect(url: string | null): string | null {
  if (typeof url !== "string") return null;
  try {
    const target = new URL(url, location.href);
    return target.protocol === "https:" || target.protocol === "http:" ? target.href : null;
  } catch {
    return null;
  }
}

function scheduleRedirect(url: string | null): void {
  const target = safeRedirect(url);
  if (!target || state.redirecting) return;
  state.redirecting = true;
  ui.redirectLink.href = target;
  ui.redirectRow.hidden = false;
  setTimeout(() => location.assign(target), REDIRECT_DELAY_MS);
}
