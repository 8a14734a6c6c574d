import type { Sql } from "@gateway/db";
import type { Chain, Coin } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { isUuid, type PaymentRow } from "@gateway/payments";
import { paymentIdParams } from "../../http/fields.js";
import { addressedBy } from "../../http/operation.js";
import type { DepositWalletRow } from "./checkout-view.js";
import type { WalletColumns } from "./wallet-statements.js";

export const NOT_FOUND = "No such payment.";
/** Every checkout operation is addressed by the payment's id alone. */
export const checkoutOperation = addressedBy(paymentIdParams, NOT_FOUND);

interface LoadedExtras extends WalletColumns {
  merchant_business_name: string | null;
  wallet_count: number | null;
}

/** A payment's row and the deposit wallet whose columns were selected beside it, apart. */
export function splitWallet(found: PaymentRow & WalletColumns): {
  row: PaymentRow;
  wallet: DepositWalletRow | undefined;
} {
  const {
    wallet_chain,
    wallet_coin,
    wallet_address,
    wallet_amount_due,
    wallet_quote_rate_micros,
    wallet_quote_expires_at,
    ...row
  } = found;
  const wallet: DepositWalletRow | undefined =
    wallet_chain !== null && wallet_coin !== null && wallet_address !== null && wallet_amount_due !== null
      ? {
          chain: wallet_chain,
          coin: wallet_coin,
          address: wallet_address,
          amount_due: wallet_amount_due,
          quote_rate_micros: wallet_quote_rate_micros,
          quote_expires_at: wallet_quote_expires_at,
        }
      : undefined;
  return { row: row as PaymentRow, wallet };
}

/** Which of the payment's deposit wallets a checkout read brings beside it. */
export type WalletChoice = "current" | { chain: Chain; coin: Coin } | "none";

/** A checkout read's row: the payment's columns, its merchant's name and one wallet's columns. */
export type CheckoutRow = PaymentRow & LoadedExtras;

/**
 * The checkout read's columns and tables, from `payments p` on, for a statement that adds its
 * `where`: the payment, its merchant's name and the wallet `wallet` names. Every checkout
 * statement reads through it, so all of them answer the same view.
 */
export function checkoutRead(sql: Sql, wallet: WalletChoice) {
  const choice = wallet !== "none" && wallet !== "current";
  const which =
    wallet === "none"
      ? sql`false`
      : wallet === "current"
        ? sql`d.address = p.state->'wallet'->>'address'`
        : sql`d.chain = ${wallet.chain} and d.coin = ${wallet.coin}`;
  return sql`p.*, m.business_name as merchant_business_name, w.chain as wallet_chain, w.coin as wallet_coin,
      w.address as wallet_address, w.amount_due as wallet_amount_due,
      w.quote_rate_micros as wallet_quote_rate_micros, w.quote_expires_at as wallet_quote_expires_at,
      ${choice ? sql`(select count(*) from deposit_wallets c where c.payment_id = p.id)` : sql`null`}::int as wallet_count
    from payments p left join merchants m on m.id = p.merchant_id
    left join lateral (
      select chain, coin, address, amount_due, quote_rate_micros, quote_expires_at from deposit_wallets d
      where d.payment_id = p.id and ${which}) w on true`;
}

/** A checkout read's row apart: the payment, its merchant's name, the wallet and the count. */
export function checkoutOf(found: CheckoutRow) {
  const { merchant_business_name, wallet_count, ...rest } = found;
  const { row, wallet: depositWallet } = splitWallet(rest);
  return {
    row,
    merchantName: merchant_business_name ?? "",
    wallet: depositWallet,
    /** For a chain and coin: how many wallets the payment had, of any choice. */
    walletCount: wallet_count ?? 0,
  };
}

/**
 * The payment, its merchant's name and one deposit wallet (`current`: the state's address; or a
 * chain and coin's) in one round trip: every checkout call starts here.
 */
export async function loadCheckout(sql: Sql, id: string, wallet: WalletChoice = "none") {
  if (!isUuid(id)) throw new GatewayError("resource_not_found", { param: "id", message: NOT_FOUND });
  const [found] = await sql<CheckoutRow[]>`select ${checkoutRead(sql, wallet)} where p.id = ${id}`;
  if (!found) throw new GatewayError("resource_not_found", { param: "id", message: NOT_FOUND });
  return checkoutOf(found);
}
