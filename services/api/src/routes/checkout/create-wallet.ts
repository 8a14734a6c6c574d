import { type Chain, type Coin, decide } from "@gateway/domain";
import { type PaymentRow, stateOf } from "@gateway/payments";
import type { ApiDeps } from "../../deps.js";
import type { DepositWalletRow } from "./checkout-view.js";
import { splitWallet } from "./load-checkout.js";
import { insertWallet, insertWalletWithState, walletOfChoice } from "./wallet-statements.js";

/**
 * A new wallet for the choice, on an address from the pool (deposit-address-pool.ts). When the
 * assignment changes only the payment's state (the common first choice), the wallet's row and
 * the state go in one statement, the state only if the payment's row is still the version it
 * was decided on and the wallet's insert took: `row` is then the payment as written. Otherwise
 * only the wallet is written (or, if a concurrent request for the same choice won, that one's
 * wallet is read), and the caller applies the assignment the general way.
 */
export async function createWallet(
  deps: Pick<ApiDeps, "sql" | "depositAddresses">,
  payment: PaymentRow,
  chain: Chain,
  coin: Coin,
  amountDue: bigint,
  quote: { rate: bigint; expiresAt: Date } | null,
): Promise<{ wallet: DepositWalletRow; row?: PaymentRow }> {
  const { sql } = deps;
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
    const [written] = await insertWalletWithState(sql, newWallet, payment, decision.state);
    if (written) {
      const { row, wallet: inserted } = splitWallet(written);
      if (row.id !== null) return { wallet: inserted!, row };
      wallet = inserted;
    }
  } else {
    [wallet] = await insertWallet(sql, newWallet);
  }
  if (wallet) return { wallet };
  // A concurrent request for the same choice won; its wallet is the one, and the address taken
  // for this one goes back to the pool, unused.
  deps.depositAddresses.giveBack(chain, payment.mode, taken);
  // Its insert took before this one's was refused, and wallets are never deleted.
  return { wallet: (await walletOfChoice(sql, payment.id, chain, coin))! };
}
