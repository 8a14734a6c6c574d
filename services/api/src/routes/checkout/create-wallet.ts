import { type Chain, type Coin, decide } from "@gateway/domain";
import { type PaymentRow, stateOf } from "@gateway/payments";
import type { ApiDeps } from "../../deps.js";
import { batched } from "../../http/batched.js";
import type { DepositWalletRow } from "./checkout-view.js";
import {
  insertWallet,
  insertWalletsWithState,
  type WalletWithState,
  type WrittenWallet,
  walletOfChoice,
} from "./wallet-statements.js";

export type CreateWallet = (
  payment: PaymentRow,
  chain: Chain,
  coin: Coin,
  amountDue: bigint,
  quote: { rate: bigint; expiresAt: Date } | null,
) => Promise<{ wallet: DepositWalletRow; row?: PaymentRow }>;

/**
 * Makes new wallets for choices, on addresses from the pool (deposit-address-pool.ts). When the
 * assignment changes only the payment's state (the common first choice), the wallet's row and
 * the state go in one statement, the state only if the payment's row is still the version it
 * was decided on and the wallet's insert took: `row` is then the payment as written. Otherwise
 * only the wallet is written (or, if a concurrent request for the same choice won, that one's
 * wallet is read), and the caller applies the assignment the general way.
 */
export function walletCreator(deps: Pick<ApiDeps, "sql" | "depositAddresses">): CreateWallet {
  const { sql } = deps;
  // Choices made while the previous write is in flight share the next statement, as payments'
  // inserts do (create-payment.ts). A failed statement commits nothing: each of its writes is then
  // made alone, so a bad one fails only its own request.
  const batch = batched((writes: WalletWithState[]) => insertWalletsWithState(sql, writes));
  const write = (w: WalletWithState): Promise<WrittenWallet> =>
    batch(w).catch(async () => (await insertWalletsWithState(sql, [w]))[0]!);

  return async (payment, chain, coin, amountDue, quote) => {
    const taken = await deps.depositAddresses.take(chain, payment.mode);
    const newWallet = {
      paymentId: payment.id,
      mode: payment.mode,
      chain,
      coin,
      derivationIndex: taken.index,
      address: taken.address,
      amountDue,
      quote,
    };
    const decision = decide(stateOf(payment), {
      type: "wallet_assigned",
      chain,
      coin,
      address: taken.address,
      amountDue,
      quote: quote && { rate: quote.rate, expiresAt: quote.expiresAt.getTime() },
    });
    let wallet: DepositWalletRow | undefined;
    if (!decision.rejected && decision.effects.length === 0) {
      const written = await write({ wallet: newWallet, payment, state: decision.state });
      if (written.wallet && written.row) return { wallet: written.wallet, row: written.row };
      wallet = written.wallet;
    } else {
      [wallet] = await insertWallet(sql, newWallet);
    }
    if (wallet) return { wallet };
    // A concurrent request for the same choice won; its wallet is the one (its insert took before
    // this one's was refused, and wallets are never deleted).
    const chosen = (await walletOfChoice(sql, payment.id, chain, coin))!;
    // The address taken for this one goes back to the pool unused, unless this request's own
    // insert took after all (a statement that failed once its batch had committed).
    if (chosen.address !== taken.address) deps.depositAddresses.giveBack(chain, payment.mode, taken);
    return { wallet: chosen };
  };
}
