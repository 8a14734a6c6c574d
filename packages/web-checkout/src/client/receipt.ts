// The customer's e-mail for a receipt (and a notice if the payment is refunded): offered while
// the payment is open or just paid.
import { api, errorMessage } from "./api.js";
import { ui } from "./elements.js";
import { t } from "./i18n.js";
import type { CheckoutView } from "./types.js";

export function renderReceipt(view: CheckoutView): void {
  ui.receipt.hidden = !["pending", "confirming", "confirmed", "completed"].includes(view.status);
}

export function wireReceipt(): void {
  ui.receipt.addEventListener("submit", (event) => {
    event.preventDefault();
    const email = ui.receiptEmail.value.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
      ui.receiptStatus.textContent = t("receiptInvalid");
      ui.receiptEmail.focus();
      return;
    }
    ui.receiptSend.disabled = true;
    api<{ email: string }>("POST", "/receipt", { email })
      .then((answer) => {
        ui.receiptStatus.textContent = t("receiptSaved", { email: answer.email });
      })
      .catch((err: unknown) => {
        ui.receiptStatus.textContent = errorMessage(err);
      })
      .finally(() => {
        ui.receiptSend.disabled = false;
      });
  });
}
