import type { Sql } from "@gateway/db";

/**
 * Makes the payment's chosen wallet (its state's) the only active one of its wallets: the one the
 * watchers watch. Read from the payment's row, not from the request that chose: two choices made
 * at once (two tabs, a double tap on two chains) both write the state, and the request whose
 * statement runs last need not be the one whose choice won; marking its own wallet would leave
 * the payment's address unwatched. Every request runs this after its own state write has
 * committed, so the last to run sees the last state. Rows already right are not written, so the
 * common first choice (its new row active by default, alone) changes nothing. A payment with no
 * wallet in its state (none chosen yet) has none active.
 */
export async function watchChosenWallet(sql: Sql, paymentId: string): Promise<void> {
  await sql`
    update deposit_wallets d set active = coalesce(d.address = p.state->'wallet'->>'address', false)
    from payments p
    where p.id = ${paymentId} and d.payment_id = p.id
      and d.active <> coalesce(d.address = p.state->'wallet'->>'address', false)`;
}
