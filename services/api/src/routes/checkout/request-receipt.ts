import { GatewayError } from "@gateway/errors";
import { z } from "zod";
import type { ApiDeps } from "../../deps.js";
import type { Handler } from "../../http/operation.js";
import { saveReceiptEmail } from "../../receipts/receipt-rows.js";
import { checkoutOperation, loadCheckout } from "./load-checkout.js";

export const receiptOperation = checkoutOperation({
  method: "post",
  path: "/payments/checkout/{id}/receipt",
  operationId: "requestReceipt",
  summary: "E-mail the customer a receipt when the payment completes, and a notice if it is refunded",
  description:
    "Sent once each, as text and HTML: the receipt (merchant, amount, coin, transaction id with an " +
    "explorer link on mainnet, date) on completion, the notice (each refund's transaction id) on a " +
    "refund, and a notice of its own when an overpayment's surplus is sent back (the surplus, its " +
    "transaction id). A later address replaces an earlier one for the mails not sent yet; a payment " +
    "already completed or refunded gets its mails at once (503 if they cannot be sent now: retry).",
  auth: "none",
  body: z
    .strictObject({ email: z.email().max(254).meta({ description: "Where the customer wants the mails." }) })
    .meta({ id: "ReceiptRequest" }),
  responses: { 200: z.object({ email: z.string() }).meta({ id: "ReceiptRequested" }) },
  errors: { 503: "The receipt of a payment already completed could not be sent just now; retry." },
});

export function requestReceipt(deps: ApiDeps): Handler<typeof receiptOperation> {
  return async ({ params, body: { email } }) => {
    const { row } = await loadCheckout(deps.sql, params.id);
    await saveReceiptEmail(deps.sql, row.id, email);
    try {
      await deps.receipts.sendDue(row.id);
    } catch (cause) {
      throw new GatewayError("service_unavailable", {
        cause,
        message: "The e-mail could not be sent; retry shortly.",
      });
    }
    return { email };
  };
}
