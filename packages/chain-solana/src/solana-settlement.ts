// Sweeps and refunds on Solana, each effect once per intent id: the journal names every
// transaction sent for an intent, and no new one is built while an earlier one may still land
// (its blockhash is still valid) or has landed.
import { createHash, type KeyObject } from "node:crypto";
import {
  associatedTokenAddress,
  buildSolanaSweep,
  buildSolanaTransfer,
  SOL_ASSET,
  solanaWireTransaction,
} from "@gateway/chain-tx";
import type { Sql } from "@gateway/db";
import type { Chain, Coin, Mode } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import {
  type IntentInput,
  type ServiceAddressBook,
  type SignerClient,
  signApproval,
} from "@gateway/signer-client";
import { type Connection, PublicKey, SendTransactionError } from "@solana/web3.js";
import bs58 from "bs58";
import { createIntentJournal } from "./intent-journal.js";

/** Mirrors the settlement service's SweepWork (structural: packages do not import services). */
export interface SolanaSweepWork {
  intentId: string;
  paymentId: string;
  mode: Mode;
  chain: Chain;
  coin: Coin;
  depositAddress: string;
  derivationIndex: number;
  amount: bigint;
}

export interface SolanaRefundWork {
  intentId: string;
  refundId: string;
  paymentId: string;
  mode: Mode;
  chain: Chain;
  coin: Coin;
  amount: bigint;
  to: string;
  from: "deposit" | "vault";
  depositAddress: string;
  derivationIndex: number;
}

export interface SolanaSettlement {
  chain: "solana";
  sweep(work: SolanaSweepWork): Promise<{ txid: string }>;
  refund(work: SolanaRefundWork): Promise<{ txid: string }>;
}

export interface SolanaSettlementOptions {
  sql: Sql;
  connection: Connection;
  signer: SignerClient;
  /** Settlement's approver key: the signer wants an approval on every refund. */
  approver: { keyId: string; key: KeyObject };
  mints: { USDC: string; USDT: string };
  log: Logger;
  /** How often to look at signature statuses while waiting; default 250 ms. */
  pollMs?: number;
  /** Give up one attempt (to be retried by the caller) after this long; default 90 s. */
  attemptTimeoutMs?: number;
}

export class SolanaSettlementError extends Error {
  override readonly name = "SolanaSettlementError";
}

const STABLECOIN_DECIMALS = 6;

/**
 * The signer takes intent ids of at most 128 characters; ours embed transfer ids (a Solana
 * signature alone is up to 88). Long ones become their kind plus a digest: still stable per
 * effect, which is all the signer's replay ledger needs.
 */
export function signerIntentId(intentId: string): string {
  if (intentId.length <= 128) return intentId;
  const kind = intentId.split(":")[0] ?? "intent";
  return `${kind}:${createHash("sha256").update(intentId).digest("hex")}`;
}

type Status = "none" | "failed" | "landed" | "finalized";

export function createSolanaSettlement(options: SolanaSettlementOptions): SolanaSettlement {
  const { sql, connection, signer, approver, mints, log } = options;
  const pollMs = options.pollMs ?? 250;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 90_000;
  const journal = createIntentJournal(sql, "solana");
  let book: Promise<ServiceAddressBook> | undefined;

  async function wallets(mode: Mode) {
    book ??= signer.getServiceAddresses().catch((error) => {
      book = undefined;
      throw error;
    });
    return (await book).solana[mode];
  }

  function assetOf(coin: Coin): string {
    if (coin === "SOL") return SOL_ASSET;
    if (coin === "USDC" || coin === "USDT") return mints[coin];
    throw new SolanaSettlementError(`${coin} is not a Solana coin`);
  }

  async function statuses(signatures: string[]): Promise<Status[]> {
    if (signatures.length === 0) return [];
    const { value } = await connection.getSignatureStatuses(signatures, { searchTransactionHistory: true });
    return value.map((status) => {
      if (!status) return "none";
      if (status.err) return "failed";
      return status.confirmationStatus === "finalized" ? "finalized" : "landed";
    });
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /**
   * Runs one intent to finality. `build` makes the unsigned message for a blockhash and
   * `intent` is what the signer checks it against; both are called again for a rebuild.
   */
  async function execute(
    intentId: string,
    intent: () => Promise<IntentInput>,
    build: (recentBlockhash: string) => Promise<Uint8Array>,
  ): Promise<string> {
    const deadline = Date.now() + attemptTimeoutMs;
    for (;;) {
      if (Date.now() > deadline) throw new SolanaSettlementError(`intent ${intentId} not final in time`);
      const record = await journal.read(intentId);
      if (record.finalTxid) return record.finalTxid;
      // The height is read before the statuses: a transaction that can still land does so at a
      // height ≤ its lastValidBlockHeight, so if the height was already past it and the statuses
      // read afterwards do not show it, it never will.
      const height = record.signatures.length > 0 ? BigInt(await connection.getBlockHeight("confirmed")) : 0n;
      const found = await statuses(record.signatures);
      const finalIndex = found.indexOf("finalized");
      if (finalIndex >= 0) {
        const txid = record.signatures[finalIndex]!;
        await journal.recordFinal(intentId, txid);
        return txid;
      }
      if (found.includes("landed")) {
        await sleep(pollMs);
        continue;
      }
      // Nothing of this intent has landed (or what landed failed). A transaction in flight
      // may still land until its blockhash expires: wait that out rather than risk two.
      const pending = found.some((s) => s === "none");
      if (pending && record.lastValidBlockHeight !== null && height <= record.lastValidBlockHeight) {
        await sleep(pollMs);
        continue;
      }
      await sendNew(intentId, await intent(), build);
    }
  }

  async function sendNew(
    intentId: string,
    intent: IntentInput,
    build: (recentBlockhash: string) => Promise<Uint8Array>,
  ): Promise<void> {
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
    const message = await build(blockhash);
    const signed = await signer.sign({ intent, unsignedTransaction: message });
    const wire = solanaWireTransaction(message, signed.signatures);
    // The fee payer signs first; its signature is the transaction id.
    const signature = bs58.encode(signed.signatures[0]!.signature);
    await journal.recordSent(intentId, signature, BigInt(lastValidBlockHeight));
    try {
      await connection.sendRawTransaction(wire, { preflightCommitment: "confirmed", maxRetries: 5 });
      log.info({ intentId, signature }, "solana transaction sent");
    } catch (error) {
      if (error instanceof SendTransactionError) {
        // Refused in preflight: it never reached the cluster, so it cannot land later.
        await journal.forget(intentId, signature);
        throw new SolanaSettlementError(`intent ${intentId} refused by the node: ${error.message}`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  async function tokenBalance(owner: string, mint: string): Promise<bigint> {
    const account = associatedTokenAddress(owner, mint);
    const info = await connection
      .getTokenAccountBalance(new PublicKey(account), "confirmed")
      .catch(() => null);
    return info ? BigInt(info.value.amount) : 0n;
  }

  /** Moves `amount` of `coin` from a deposit address to the vault under a sweep intent. */
  async function collect(
    intentId: string,
    work: { mode: Mode; coin: Coin; depositAddress: string; derivationIndex: number; amount: bigint },
  ) {
    const asset = assetOf(work.coin);
    const { vault, gas } = await wallets(work.mode);
    return execute(
      intentId,
      async () => ({
        kind: "sweep",
        intentId: signerIntentId(intentId),
        chain: "solana",
        mode: work.mode,
        asset,
        amount: work.amount,
        depositIndex: work.derivationIndex,
      }),
      async (recentBlockhash) => {
        // Close the deposit token account only when this empties it (rent back to the gas
        // wallet); a late transfer still waiting for its refund keeps it open.
        const closeDepositAccount =
          asset !== SOL_ASSET && (await tokenBalance(work.depositAddress, asset)) === work.amount;
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
    );
  }

  async function payFromVault(work: SolanaRefundWork) {
    const asset = assetOf(work.coin);
    const { vault, gas } = await wallets(work.mode);
    return execute(
      work.intentId,
      async () => {
        const intent: IntentInput = {
          kind: "refund",
          intentId: signerIntentId(work.intentId),
          chain: "solana",
          mode: work.mode,
          asset,
          amount: work.amount,
          destination: work.to,
          reference: work.paymentId,
        };
        return {
          ...intent,
          approval: signApproval({ intent, keyId: approver.keyId, privateKey: approver.key }),
        };
      },
      async (recentBlockhash) =>
        buildSolanaTransfer({
          asset,
          source: vault,
          destination: work.to,
          gasWallet: gas,
          amount: work.amount,
          recentBlockhash,
          ...(asset === SOL_ASSET ? {} : { decimals: STABLECOIN_DECIMALS }),
        }),
    );
  }

  return {
    chain: "solana",
    async sweep(work) {
      return { txid: await collect(work.intentId, work) };
    },
    async refund(work) {
      // The signer pays refunds only from the vault: money still at the deposit address is
      // first collected there under its own sweep intent, then sent on.
      if (work.from === "deposit") await collect(`${work.intentId}:collect`, work);
      return { txid: await payFromVault(work) };
    },
  };
}
