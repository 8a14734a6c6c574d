import { SIMULATED_OUTCOMES } from "@gateway/contracts";
import { GatewayError } from "@gateway/errors";
import { isUuid } from "@gateway/payments";
import { z } from "zod";
import type { ApiDeps } from "../../deps.js";
import { batched } from "../../http/batched.js";
import type { Handler } from "../../http/operation.js";
import { CheckoutViewSchema } from "../../openapi/resources.js";
import { checkoutView, walletLinks } from "./checkout-view.js";
import { checkoutOperation, NOT_FOUND } from "./load-checkout.js";
import { enqueueSimulations, type SimulateAnswer, type SimulateRequest } from "./simulate-statements.js";

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
  // The payment actor lives in settlement: the command travels through the outbox.
  const subject = bus.topology.subjects.paymentCommand("simulate");
  // Requests made while the previous statement is in flight share the next, as payments' inserts
  // do (create-payment.ts); a failed statement commits nothing, and each request is then tried alone.
  const batch = batched((requests: SimulateRequest[]) => enqueueSimulations(sql, subject, requests));
  const enqueue = (request: SimulateRequest): Promise<SimulateAnswer> =>
    batch(request).catch(async () => (await enqueueSimulations(sql, subject, [request]))[0]!);
  return async ({ params, body: { outcome } }) => {
    if (!isUuid(params.id)) throw new GatewayError("resource_not_found", { param: "id", message: NOT_FOUND });
    const { checkout, enqueued } = await enqueue({
      paymentId: params.id,
      message: { type: "simulate", outcome },
    });
    // Live payments cannot be simulated; to this endpoint they do not exist.
    if (checkout?.row.mode !== "test")
      throw new GatewayError("resource_not_found", { param: "id", message: NOT_FOUND });
    const { row, merchantName, wallet } = checkout;
    if (row.status !== "pending") {
      throw new GatewayError("state_conflict", {
        message: `The payment is ${row.status}; only pending payments can be simulated.`,
      });
    }
    // The statement's read and its condition saw one snapshot: a pending test payment took it.
    if (!enqueued) throw new Error(`simulate command for payment ${row.id} was not written`);
    return checkoutView(row, merchantName, wallet, walletLinks(deps), deps.prices);
  };
}
