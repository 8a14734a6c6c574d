// simulate's statement, apart from the route so that bench/pg-floor.ts sends the very statement
// the route sends.
import type { PaymentCommand } from "@gateway/contracts";
import { newId, outboxWritten, type Sql } from "@gateway/db";
import { type CheckoutRow, checkoutOf, checkoutRead } from "./load-checkout.js";

export interface SimulateRequest {
  paymentId: string;
  message: PaymentCommand["message"];
}

/** The checkout as the command's statement read it (none for an unknown payment), and whether it took. */
export interface SimulateAnswer {
  checkout?: ReturnType<typeof checkoutOf>;
  enqueued: boolean;
}

/**
 * Many requests' commands in one statement, each only for a pending test payment, with the checkout
 * read beside it: one snapshot, so a command is enqueued exactly when its read allows it.
 */
export async function enqueueSimulations(
  sql: Sql,
  subject: string,
  requests: SimulateRequest[],
): Promise<SimulateAnswer[]> {
  const commandIds = requests.map(() => newId("cmd"));
  const found = await sql<(CheckoutRow & { command_id: string; enqueued: boolean })[]>`
    with request as (
      select * from unnest(${commandIds}::text[], ${requests.map((r) => r.paymentId)}::uuid[],
        ${requests.map((r) => JSON.stringify(r.message))}::text[]) as r(command_id, payment_id, message)),
    command as (
      insert into outbox (id, subject, payload)
      select r.command_id, ${subject}, jsonb_build_object('payment_id', p.id, 'message', r.message::jsonb)
      from request r join payments p on p.id = r.payment_id
      where p.mode = 'test' and p.status = 'pending'
      on conflict (id) do nothing
      returning id)
    select r.command_id, exists (select 1 from command c where c.id = r.command_id) as enqueued,
      ${checkoutRead(sql, "current")}
    join request r on r.payment_id = p.id`;
  if (found.some((f) => f.enqueued)) outboxWritten(sql);
  const byCommand = new Map(
    found.map(({ command_id, enqueued, ...row }) => [command_id, { checkout: checkoutOf(row), enqueued }]),
  );
  return commandIds.map((id) => byCommand.get(id) ?? { enqueued: false });
}
