import { SIMULATED_OUTCOMES } from "@gateway/contracts";
import { enqueueOutbox, newId } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import { z } from "zod";
import type { ApiDeps } from "../../deps.js";
import type { Handler } from "../../http/operation.js";
import { CheckoutViewSchema } from "../../openapi/resources.js";
import { checkoutView, walletLinks } from "./checkout-view.js";
import { checkoutOperation, loadCheckout, NOT_FOUND } from "./load-checkout.js";

export const simulateOperation = checkoutOperation({
  method: "post",
  path: "/payments/checkout/{id}/simulate",
  operationId: "simulatePayment",
  summary: "Test mode only: simulate an outcome",
  auth: "none",
  idempotent: true,
  body: z.strictObject({ outcome: z.enum(SIMULATED_OUTCOMES) }).meta({ id: "SimulateRequest" }),
  responses: { 202: { schema: CheckoutViewSchema, description: "Accepted; the payment changes shortly." } },
  errors: { 404: "No such test payment.", 409: "The payment is not pending." },
});

export function simulatePayment(deps: ApiDeps): Handler<typeof simulateOperation> {
  const { sql, bus } = deps;
  return async ({ params, body: { outcome } }) => {
    const { row, merchantName, wallet } = await loadCheckout(sql, params.id, "current");
    // Live payments cannot be simulated; to this endpoint they do not exist.
    if (row.mode !== "test")
      throw new GatewayError("resource_not_found", { param: "id", message: NOT_FOUND });
    if (row.status !== "pending") {
      throw new GatewayError("state_conflict", {
        message: `The payment is ${row.status}; only pending payments can be simulated.`,
      });
    }
    // The payment actor lives in settlement: the command travels through the outbox.
    const id = newId("cmd");
    await enqueueOutbox(sql, [
      {
        id,
        subject: bus.topology.subjects.paymentCommand("simulate"),
        payload: { payment_id: row.id, message: { type: "simulate", outcome } },
      },
    ]);
    return checkoutView(row, merchantName, wallet, walletLinks(deps), deps.prices);
  };
}
