// `gateway trigger <event>`: a test payment created and driven, by the checkout's simulate route,
// to the status that sends that event.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Payment, PaymentStatus, SimulatedOutcome } from "@gateway/contracts";
import type { ApiClient } from "./api-client.js";
import { CliError } from "./cli-error.js";
import type { Output } from "./output.js";

/** Each event a trigger can send: the outcome simulated and the status the payment ends in. */
export const TRIGGERS = {
  "payment.completed": { outcome: "paid", status: "completed" },
  "payment.underpaid": { outcome: "underpaid", status: "refunded" },
  "payment.refunded": { outcome: "underpaid", status: "refunded" },
  "payment.expired": { outcome: "expired", status: "expired" },
} as const satisfies Record<string, { outcome: SimulatedOutcome; status: PaymentStatus }>;
export type TriggerEvent = keyof typeof TRIGGERS;

export interface TriggerOptions {
  client: ApiClient;
  out: Output;
  event: string;
  amount: string;
  currency: string;
  timeoutMs: number;
}

export async function trigger(o: TriggerOptions): Promise<Payment> {
  if (!Object.hasOwn(TRIGGERS, o.event))
    throw new CliError(`Cannot trigger "${o.event}": choose one of ${Object.keys(TRIGGERS).join(", ")}.`);
  const { outcome, status } = TRIGGERS[o.event as TriggerEvent];
  // Idempotency keys make the retries of a lost answer safe: one payment, one simulation.
  const created = await o.client.post<Payment>(
    "/payments",
    { amount: o.amount, currency: o.currency, description: `gateway trigger ${o.event}` },
    { "idempotency-key": randomUUID() },
  );
  o.out.say(`Created test payment ${created.id} (${created.amount} ${created.currency}).`);
  await o.client.post(
    `/payments/checkout/${created.id}/simulate`,
    { outcome },
    { "idempotency-key": randomUUID() },
  );
  o.out.say(`Simulated the outcome "${outcome}"; waiting for the payment to be ${status}…`);
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    const payment = await o.client.get<Payment>(`/payments/${created.id}`);
    if (payment.status === status) {
      o.out.result(`Payment ${payment.id} is ${status}: ${o.event} was sent.`, payment);
      return payment;
    }
    if (Date.now() > deadline)
      throw new CliError(
        `Payment ${payment.id} is still ${payment.status} after ${o.timeoutMs / 1000} s: is the settlement service running?`,
      );
    await sleep(250);
  }
}
