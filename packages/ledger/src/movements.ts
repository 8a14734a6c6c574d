// The movements of money the gateway knows, each one balanced ledger transaction. Every function
// runs inside the caller's SQL transaction, next to the state change that causes it, and is
// idempotent through its reference.
import type { TransactionSql } from "@gateway/db";
import type { Chain, Coin, Mode } from "@gateway/domain";
import {
  type AccountRef,
  accountId,
  type Book,
  InsufficientBalanceError,
  type LedgerTransactionInput,
  lockedBalance,
} from "./ledger.js";
import { postTransaction } from "./post-transfers.js";

/** The book a movement is in: its mode, chain and coin. */
const inBook = (b: Book): Book => ({ mode: b.mode, chain: b.chain, coin: b.coin });
/** A payout's movements name its merchant and the payout. */
const ofPayout = (p: PayoutMovement) => ({ ...inBook(p), merchantId: p.merchantId, payoutId: p.payoutId });

/** The movement of most kinds: one amount from one account (debited) to another (credited). */
function transferInput(
  head: Omit<LedgerTransactionInput, "postings">,
  amount: bigint,
  from: AccountRef,
  to: AccountRef,
): LedgerTransactionInput {
  return {
    ...head,
    postings: [
      { account: from, debit: amount },
      { account: to, credit: amount },
    ],
  };
}

function transfer(
  tx: TransactionSql,
  head: Omit<LedgerTransactionInput, "postings">,
  amount: bigint,
  from: AccountRef,
  to: AccountRef,
): Promise<boolean> {
  return postTransaction(tx, transferInput(head, amount, from, to));
}

export interface PaymentCredit extends Book {
  paymentId: string;
  merchantId: string;
  /** What the payment brought into the vault for the amount due, in coin base units. */
  gross: bigint;
  fee: bigint;
  net: bigint;
  /** The payment's USD value in micro-USD and the rate it was valued at (null: 1:1 or unknown). */
  usdValue?: bigint | null;
  usdRate?: bigint | null;
}

/**
 * A payment completed: its funds are in the vault (completion follows the sweep; in test mode
 * the vault is simulated), the merchant is owed `net` and the service earned `fee`.
 */
export function creditPayment(tx: TransactionSql, c: PaymentCredit): Promise<boolean> {
  return postTransaction(tx, paymentCredit(c));
}

/** A payment's credit as a transaction to post, alone or with others (`postTransactions`). */
export function paymentCredit(c: PaymentCredit): LedgerTransactionInput {
  const merchant = { kind: "merchant_available", merchantId: c.merchantId } as const;
  return {
    reference: `payment:${c.paymentId}:credit`,
    kind: "payment_credited",
    ...inBook(c),
    merchantId: c.merchantId,
    paymentId: c.paymentId,
    usdValue: c.usdValue ?? null,
    usdRate: c.usdRate ?? null,
    postings: [
      { account: { kind: "platform_vault" }, debit: c.gross },
      { account: merchant, credit: c.net },
      { account: { kind: "platform_fees" }, credit: c.fee },
    ],
  };
}

export interface VaultRefund extends Book {
  paymentId: string;
  refundId: string;
  amount: bigint;
}

/** A surplus swept into the vault that belongs to the customer until it is sent back. */
export function owePaymentRefund(tx: TransactionSql, r: VaultRefund): Promise<boolean> {
  return postTransaction(tx, refundStep(r, "owed"));
}

/** The surplus left the vault for the customer. */
export function payPaymentRefund(tx: TransactionSql, r: VaultRefund): Promise<boolean> {
  return postTransaction(tx, refundStep(r, "paid"));
}

/**
 * A refund moves between the vault and the refunds owed: in when owed, back out when paid. As a
 * transaction to post, alone or with others (`postTransactions`).
 */
export function refundStep(r: VaultRefund, step: "owed" | "paid"): LedgerTransactionInput {
  const vault = { kind: "platform_vault" } as const;
  const owed = { kind: "platform_refunds" } as const;
  const head = {
    reference: `refund:${r.refundId}:${step}`,
    kind: `refund_${step}` as const,
    ...inBook(r),
    paymentId: r.paymentId,
  };
  return step === "owed"
    ? transferInput(head, r.amount, vault, owed)
    : transferInput(head, r.amount, owed, vault);
}

export interface PayoutMovement extends Book {
  payoutId: string;
  merchantId: string;
  /** What leaves the merchant's balance, network fee included. */
  amount: bigint;
  /** The part of `amount` that pays the network gas (0 for the free scheduled payout). */
  networkFee: bigint;
}

/**
 * Moves `amount` from available to reserved, or throws InsufficientBalanceError. The available
 * account's row is locked first, so concurrent payouts against one balance queue up and each
 * sees what the ones before it left; the database's non-negative check is the backstop.
 */
export async function reservePayout(
  tx: TransactionSql,
  p: PayoutMovement,
  options: { alreadySent?: boolean } = {},
): Promise<void> {
  const available = { kind: "merchant_available", merchantId: p.merchantId } as const;
  const balance = await lockedBalance(tx, p, available);
  if (balance < p.amount) {
    if (!options.alreadySent) throw new InsufficientBalanceError(balance, p.amount);
    // A payout the signer signed before a restore of the database went out whatever the balance
    // says now (the credits it was paid from come back as the watchers see their deposits
    // again): it is booked regardless, and the account may show less than zero until then.
    await tx`update ledger_accounts set overdrawn_by_restore = true
      where id = ${await accountId(tx, p, available)}`;
  }
  await transfer(
    tx,
    { reference: `payout:${p.payoutId}:reserve`, kind: "payout_reserved", ...ofPayout(p) },
    p.amount,
    available,
    { kind: "merchant_reserved", merchantId: p.merchantId },
  );
}

/** The payout was sent: the reserve leaves the vault, and the network fee pays the service back its gas. */
export function completePayout(tx: TransactionSql, p: PayoutMovement): Promise<boolean> {
  return postTransaction(tx, {
    reference: `payout:${p.payoutId}:settle`,
    kind: "payout_completed",
    ...ofPayout(p),
    postings: [
      { account: { kind: "merchant_reserved", merchantId: p.merchantId }, debit: p.amount },
      { account: { kind: "platform_vault" }, credit: p.amount - p.networkFee },
      { account: { kind: "platform_gas_recovered" }, credit: p.networkFee },
    ],
  });
}

/** The payout failed: the reserve goes back to available. Same reference as completion, so only one of them can happen. */
export function releasePayout(tx: TransactionSql, p: PayoutMovement): Promise<boolean> {
  return transfer(
    tx,
    { reference: `payout:${p.payoutId}:settle`, kind: "payout_released", ...ofPayout(p) },
    p.amount,
    { kind: "merchant_reserved", merchantId: p.merchantId },
    { kind: "merchant_available", merchantId: p.merchantId },
  );
}

/**
 * Native gas the service's gas wallet paid for one transaction (sweep, refund, payout), in the
 * chain's own coin. Funding the gas wallet is not recorded here, so its balance reads as minus
 * the gas spent since the ledger began.
 */
export function recordGasSpent(
  tx: TransactionSql,
  g: { reference: string; mode: Mode; chain: Chain; coin: Coin; amount: bigint },
): Promise<boolean> {
  return transfer(
    tx,
    { reference: `gas:${g.reference}`, kind: "gas_spent", ...inBook(g) },
    g.amount,
    { kind: "platform_gas_spent" },
    { kind: "platform_gas_wallet" },
  );
}

/**
 * A transfer the signer signed and the chain made final that nothing in the database explains
 * (a sweep or refund for a deposit wallet a restore of the database took away: packages/restore).
 * The vault's side is booked as it happened, against the suspense account, until an operator
 * finds whose money it is; one booking per signer intent.
 */
export interface SuspenseMovement extends Book {
  intentId: string;
  amount: bigint;
}

const VAULT = { kind: "platform_vault" } as const;
const SUSPENSE = { kind: "platform_suspense" } as const;

/** Money reached the vault (`received`) or left it (`paid`) for no deposit wallet the database has. */
export function bookInSuspense(
  tx: TransactionSql,
  direction: "received" | "paid",
  m: SuspenseMovement,
): Promise<boolean> {
  const head = { reference: `signed:${m.intentId}`, kind: `suspense_${direction}`, ...inBook(m) } as const;
  return direction === "received"
    ? transfer(tx, head, m.amount, VAULT, SUSPENSE)
    : transfer(tx, head, m.amount, SUSPENSE, VAULT);
}
