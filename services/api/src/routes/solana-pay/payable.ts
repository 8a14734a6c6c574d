// Whether a payment can be paid from a wallet through its Solana Pay transaction request, and how
// much is still due: pure, so every refusal's wording is tested without a chain.
import { type Coin, formatAmount, type PaymentState } from "@gateway/domain";

export type Payable =
  | { ok: true; coin: Coin; address: string; amount: bigint }
  | { ok: false; message: string };

/**
 * The amount still due on the payment's Solana wallet: its amount due less every transfer seen
 * or counted, so a customer who paid part (or whose transfer is on its way) is never asked for
 * the whole again. Refused, with words a wallet can show, once nothing more should be sent.
 */
export function payableBySolanaPay(state: PaymentState, now: number): Payable {
  if (state.mode === "test")
    return refuse("This is a test payment: settle it with the test buttons on the checkout page.");
  if (state.status !== "pending" && state.status !== "confirming")
    return refuse(`This payment is ${state.status} and can no longer be paid.`);
  if (state.expiresAt <= now) return refuse("This payment has expired and can no longer be paid.");
  const wallet = state.wallet;
  if (wallet?.chain !== "solana" || wallet.address === null)
    return refuse("Choose Solana on the checkout page before paying from a Solana wallet.");
  if (wallet.quote && (wallet.quote.ended || wallet.quote.expiresAt <= now))
    return refuse("The locked rate has ended: get a new quote on the checkout page first.");
  const sent = state.transfers
    .filter((t) => t.status === "seen" || t.status === "counted")
    .reduce((sum, t) => sum + t.amount, 0n);
  const amount = wallet.amountDue - sent;
  if (amount <= 0n) return refuse("This payment has been paid and is being confirmed.");
  return { ok: true, coin: wallet.coin, address: wallet.address, amount };
}

/** "12.50 USDC": how the wallet's message names an amount. */
export const amountText = (amount: bigint, coin: Coin) => `${formatAmount(amount, coin)} ${coin}`;

function refuse(message: string): Payable {
  return { ok: false, message };
}
