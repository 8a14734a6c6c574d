// Sweeps, refunds and payouts on Solana, each effect once per intent id, through the intent
// runner: the signer binds one transaction to each attempt, the journal keeps it, and a new
// attempt starts only when it can never land. Refunds and payouts spend durable nonces.
import type { KeyObject } from "node:crypto";
import { refundAttestation, type SettlementAdapter } from "@gateway/chain-kit";
import { associatedTokenAddress, buildSolanaSweep, buildSolanaTransfer, SOL_ASSET } from "@gateway/chain-tx";
import type { Sql } from "@gateway/db";
import type { ChainPayoutWork, Coin, Mode, RefundWork } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import {
  type IntentInput,
  type ServiceAddressBook,
  type SignerClient,
  type SupersessionInput,
  signApproval,
} from "@gateway/signer-client";
import { type Connection, PublicKey, type VersionedTransactionResponse } from "@solana/web3.js";
import { createSolanaIntentRunner, type SolanaIntentRunner, signerIntentId } from "./intent-runner.js";
import { createNoncePool } from "./nonce-pool.js";

export { signerIntentId };

/** The intent the signer checks a payout against, and the API approved (attempt 1's id). */
export function solanaPayoutIntent(
  work: Pick<ChainPayoutWork, "intentId" | "payoutId" | "mode" | "coin" | "amount" | "destination"> &
    Partial<Pick<ChainPayoutWork, "merchantId">>,
  mints: { USDC: string; USDT: string },
): IntentInput {
  return {
    kind: "payout",
    intentId: signerIntentId(work.intentId),
    chain: "solana",
    mode: work.mode,
    asset: mints[work.coin],
    amount: work.amount,
    destination: work.destination,
    reference: work.payoutId,
    ...(work.merchantId ? { merchantId: work.merchantId } : {}),
  };
}

/** Solana's settlement adapter (the contract every chain's follows, packages/chain-kit). */
export type SolanaSettlement = SettlementAdapter<"solana">;

export interface SolanaSettlementOptions {
  sql: Sql;
  connection: Connection;
  signer: SignerClient;
  /** Settlement's approver key: the signer wants an approval on every refund. */
  approver: { keyId: string; key: KeyObject };
  mints: { USDC: string; USDT: string };
  log: Logger;
  /** How often to look at signature statuses while waiting (all intents in one call); default 100 ms. */
  pollMs?: number;
  /** Durable nonce accounts per mode at most (refunds and payouts in flight at once). */
  noncePoolSize?: number;
  /** Give up one attempt (to be retried by the caller) after this long; default 90 s. */
  attemptTimeoutMs?: number;
}

export class SolanaSettlementError extends Error {
  override readonly name = "SolanaSettlementError";
}

const STABLECOIN_DECIMALS = 6;

/**
 * Lamports the fee payer (account 0) lost in a transaction: the fee plus any rent it paid. Negative
 * when the transaction gave it more back (a closed account's rent) than it spent.
 */
export function feePayerSpend(tx: Pick<VersionedTransactionResponse, "meta">): bigint | undefined {
  const before = tx.meta?.preBalances[0];
  const after = tx.meta?.postBalances[0];
  return before === undefined || after === undefined ? undefined : BigInt(before) - BigInt(after);
}

/** The signer's service addresses, asked once and kept; asked again after a failure. */
function serviceWallets(signer: SignerClient) {
  let book: Promise<ServiceAddressBook> | undefined;
  return async (mode: Mode) => {
    book ??= signer.getServiceAddresses().catch((error) => {
      book = undefined;
      throw error;
    });
    return (await book).solana[mode];
  };
}

/** What the settlement's operations share. */
interface Settlement {
  connection: Connection;
  runner: SolanaIntentRunner;
  wallets: ReturnType<typeof serviceWallets>;
}

function assetOf(coin: Coin, mints: { USDC: string; USDT: string }): string {
  if (coin === "SOL") return SOL_ASSET;
  if (coin === "USDC" || coin === "USDT") return mints[coin];
  throw new SolanaSettlementError(`${coin} is not a Solana coin`);
}

async function tokenBalance(connection: Connection, owner: string, mint: string): Promise<bigint> {
  const account = associatedTokenAddress(owner, mint);
  const info = await connection.getTokenAccountBalance(new PublicKey(account), "confirmed").catch(() => null);
  return info ? BigInt(info.value.amount) : 0n;
}

/** Moves `amount` of `asset` from a deposit address to the vault under a sweep intent. */
async function collect(
  { connection, runner, wallets }: Settlement,
  intentId: string,
  work: { mode: Mode; asset: string; depositAddress: string; derivationIndex: number; amount: bigint },
) {
  const { asset } = work;
  const { vault, gas } = await wallets(work.mode);
  return runner.run({
    intentId,
    mode: work.mode,
    // A sweep that expires unlanded is simply made again: it can only reach the vault.
    durable: false,
    intent: (id) => ({
      kind: "sweep",
      intentId: id,
      chain: "solana",
      mode: work.mode,
      asset,
      amount: work.amount,
      depositIndex: work.derivationIndex,
    }),
    build: async (recentBlockhash) => {
      // Close the deposit token account only when this empties it (rent back to the gas
      // wallet); a late transfer still waiting for its refund keeps it open.
      const closeDepositAccount =
        asset !== SOL_ASSET && (await tokenBalance(connection, work.depositAddress, asset)) === work.amount;
      return buildSolanaSweep({
        asset,
        depositOwner: work.depositAddress,
        vault,
        gasWallet: gas,
        amount: work.amount,
        recentBlockhash,
        closeDepositAccount,
        ...(asset === SOL_ASSET ? {} : { decimals: STABLECOIN_DECIMALS }),
      });
    },
  });
}

/** Vault → destination for a refund or payout intent: durable, so it never expires unlanded. */
async function payFromVault(
  { runner, wallets }: Settlement,
  work: { intentId: string; mode: Mode; asset: string; amount: bigint; destination: string },
  intent: (signerIntentId: string, supersedes?: SupersessionInput) => IntentInput,
) {
  const { vault, gas } = await wallets(work.mode);
  return runner.run({
    intentId: work.intentId,
    mode: work.mode,
    durable: true,
    intent,
    build: async (recentBlockhash, nonceAccount) =>
      buildSolanaTransfer({
        asset: work.asset,
        source: vault,
        destination: work.destination,
        gasWallet: gas,
        amount: work.amount,
        recentBlockhash,
        ...(nonceAccount ? { nonceAccount } : {}),
        ...(work.asset === SOL_ASSET ? {} : { decimals: STABLECOIN_DECIMALS }),
      }),
  });
}

/** The refund's signer intent under an attempt's id, approved with settlement's key. */
function refundIntent(work: RefundWork, asset: string, approver: SolanaSettlementOptions["approver"]) {
  return (id: string, supersedes?: SupersessionInput): IntentInput => {
    const intent: IntentInput = {
      kind: "refund",
      intentId: id,
      chain: "solana",
      mode: work.mode,
      asset,
      amount: work.amount,
      destination: work.to,
      reference: work.paymentId,
      ...refundAttestation(work),
      ...(supersedes && { supersedes }),
    };
    return { ...intent, approval: signApproval({ intent, keyId: approver.keyId, privateKey: approver.key }) };
  };
}

/** What the fee payer (the gas wallet) lost in the transaction: the fee plus any rent it paid. */
async function gasSpent(connection: Connection, txid: string): Promise<bigint | undefined> {
  const tx = await connection
    .getTransaction(txid, { commitment: "finalized", maxSupportedTransactionVersion: 0 })
    .catch(() => null);
  return tx ? feePayerSpend(tx) : undefined;
}

export function createSolanaSettlement(options: SolanaSettlementOptions): SolanaSettlement {
  const { sql, connection, signer, approver, mints, log } = options;
  const wallets = serviceWallets(signer);
  const pool = createNoncePool({
    sql,
    connection,
    signer,
    log,
    gasWallet: async (mode) => (await wallets(mode)).gas,
    ...(options.noncePoolSize ? { maxAccounts: options.noncePoolSize } : {}),
  });
  const runner = createSolanaIntentRunner({
    sql,
    connection,
    signer,
    pool,
    log,
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    ...(options.attemptTimeoutMs ? { attemptTimeoutMs: options.attemptTimeoutMs } : {}),
  });
  const settlement: Settlement = { connection, runner, wallets };

  return {
    chain: "solana",
    async sweep(work) {
      return {
        txid: await collect(settlement, work.intentId, { ...work, asset: assetOf(work.coin, mints) }),
      };
    },
    async refund(work) {
      const asset = assetOf(work.coin, mints);
      // The signer pays refunds only from the vault: money still at the deposit address is
      // first collected there under its own sweep intent, then sent on.
      if (work.from === "deposit") await collect(settlement, `${work.intentId}:collect`, { ...work, asset });
      const txid = await payFromVault(
        settlement,
        { ...work, asset, destination: work.to },
        refundIntent(work, asset, approver),
      );
      return { txid };
    },
    async payout(work) {
      const asset = assetOf(work.coin, mints);
      const txid = await payFromVault(settlement, { ...work, asset }, (id) => ({
        ...solanaPayoutIntent(work, mints),
        intentId: id,
        ...(work.approval ? { approval: work.approval } : {}),
      }));
      const gas = await gasSpent(connection, txid);
      return gas === undefined ? { txid } : { txid, gasSpent: gas };
    },
  };
}
