import type { ApiDeps } from "../../deps.js";
import { ANSWERED, type Handler } from "../../http/operation.js";
import { CheckoutViewSchema } from "../../openapi/resources.js";
import { streamPaymentChanges } from "./checkout-events.js";
import { checkoutView, walletLinks } from "./checkout-view.js";
import { checkoutOperation, loadCheckout } from "./load-checkout.js";

export const getCheckoutOperation = checkoutOperation({
  method: "get",
  path: "/payments/checkout/{id}",
  operationId: "getCheckout",
  summary: "Public view of a payment for the checkout page",
  auth: "none",
  responses: { 200: CheckoutViewSchema },
});

export const followCheckoutOperation = checkoutOperation({
  method: "get",
  path: "/payments/checkout/{id}/events",
  operationId: "followCheckout",
  summary: "Server-Sent Events: a notice each time the payment changes, until it is final",
  description:
    "A `text/event-stream` of `change` events whose `id` is the payment's version and whose " +
    '`data` is `{"version": n, "status": "…"}`; never the view itself, which the ' +
    "page reads again with `GET /payments/checkout/{id}`. The first event is the current " +
    "version. The stream ends once the status is completed, refunded, expired or failed, " +
    "and after 10 minutes in any case (EventSource reconnects). A comment line every 15 s " +
    "keeps proxies from closing it. The whole stream counts as one request against the rate limit.",
  auth: "none",
  responses: { 200: { stream: "text/event-stream", description: "The stream of change notices." } },
});

export function getCheckout(deps: ApiDeps): Handler<typeof getCheckoutOperation> {
  return async ({ params }) => {
    const { row, merchantName, wallet } = await loadCheckout(deps.sql, params.id, "current");
    return checkoutView(row, merchantName, wallet, walletLinks(deps), deps.prices);
  };
}

export function followCheckout(deps: ApiDeps): Handler<typeof followCheckoutOperation> {
  return async ({ params }, req, res) => {
    const { row } = await loadCheckout(deps.sql, params.id);
    streamPaymentChanges(req, res, row, deps.paymentWatch);
    return ANSWERED;
  };
}
