// The last step: how the payment ended, any refunds, and the way back to the shop.

import { ui } from "./elements.js";
import { money, t } from "./i18n.js";
import { REFUND_REASON_LABELS } from "./labels.js";
import { state } from "./state.js";
import type { CheckoutView } from "./types.js";

const REDIRECT_DELAY_MS = 3000;

export function fillResult(view: CheckoutView): void {
  const merchant = view.merchant_name || t("shopFallback");
  const amount = money(view.amount, view.currency);
  let title: string;
  let text: string;
  let tone = "bad";
  switch (view.status) {
    case "completed":
      tone = "ok";
      title = t("resultPaidTitle");
      text = t(safeRedirect(view.redirect_url) ? "resultPaid" : "resultPaidClose", { merchant, amount });
      break;
    case "underpaid":
      title = t("resultUnderpaidTitle");
      text = t("resultUnderpaid");
      break;
    case "refunded":
      title = t("resultRefundedTitle");
      text = t("resultRefunded");
      break;
    case "expired":
      title = t("resultExpiredTitle");
      text = t("resultExpired", { merchant });
      break;
    default:
      title = t("resultFailedTitle");
      text = t("resultFailed", { merchant });
  }
  ui.steps.result.dataset.tone = tone;
  ui.resultTitle.textContent = title;
  ui.resultText.textContent = text;

  const refunds = view.refunds ?? [];
  ui.refunds.hidden = refunds.length === 0;
  ui.refunds.replaceChildren(
    ...refunds.map((r) => {
      const item = document.createElement("li");
      item.textContent = t("refundLine", {
        reason: t(REFUND_REASON_LABELS[r.reason]),
        amount: money(r.amount, r.coin),
        status: t(r.status === "sent" ? "refundSent" : "refundSending"),
      });
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
