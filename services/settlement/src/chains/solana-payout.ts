// Live payouts on Solana: one SPL transfer from the vault to the destination's token account
// (created idempotently when missing, rent paid by the gas wallet), signed by the signer against
// the API's approval, once per intent. The journal (chain_intents) names every transaction sent
// for an intent; no new one is built while an earlier one may still land or has landed.

import { createIntentJournal, signerIntentId } from "@gateway/chain-solana";
import { buildSolanaTransfer, solanaWireTransaction } from "@gateway/chain-tx";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import type { IntentInput, SignerClient } from "@gateway/signer-client";
import { type Connection, SendTransactionError } from "@solana/web3.js";
import bs58 from "bs58";
import { type ChainPayout, PayoutRefusedError, type PayoutWork } from "./chain-payouts.js";

export interface SolanaPayoutOptions {
  sql: Sql;
  connection: Connection;
  signer: SignerClient;
  mints: { USDC: string; USDT: string };
  log: Logger;
  /** How often to look at signature statuses while waiting; default 250 ms. */
  pollMs?: number;
  /** Give up one attempt (retried by the payout actor) after this long; default 90 s. */
  attemptTimeoutMs?: number;
}

const DECIMALS = 6;

/** The intent the signer checks the transaction against, and the API approved. */
export function solanaPayoutIntent(
  work: Pick<PayoutWork, "intentId" | "payoutId" | "mode" | "coin" | "amount" | "destination">,
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
  };
}

export function createSolanaPayout(options: SolanaPayoutOptions): ChainPayout {
  const { connection, signer, mints, log } = options;
  const pollMs = options.pollMs ?? 250;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 90_000;
  const journal = createIntentJournal(options.sql, "solana");
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function statuses(signatures: string[]) {
    if (signatures.length === 0) return [];
    const { value } = await connection.getSignatureStatuses(signatures, { searchTransactionHistory: true });
    return value.map((s) =>
      !s ? "none" : s.err ? "failed" : s.confirmationStatus === "finalized" ? "final" : "landed",
    );
  }

  async function send(work: PayoutWork): Promise<void> {
    if (!work.approval) throw new PayoutRefusedError("the payout carries no approval from the API");
    const { vault, gas } = (await signer.getServiceAddresses()).solana[work.mode];
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
    const message = buildSolanaTransfer({
      asset: mints[work.coin],
      source: vault,
      destination: work.destination,
      gasWallet: gas,
      amount: work.amount,
      decimals: DECIMALS,
      recentBlockhash: blockhash,
    });
    let signed: Awaited<ReturnType<SignerClient["sign"]>>;
    try {
      signed = await signer.sign({
        intent: { ...solanaPayoutIntent(work, mints), approval: work.approval } as IntentInput,
        unsignedTransaction: message,
      });
    } catch (cause) {
      // The signer refused the intent: nothing was signed, so nothing can be sent.
      throw new PayoutRefusedError(`the signer refused the payout: ${String(cause)}`, { cause });
    }
    const signature = bs58.encode(signed.signatures[0]!.signature);
    await journal.recordSent(work.intentId, signature, BigInt(lastValidBlockHeight));
    try {
      await connection.sendRawTransaction(solanaWireTransaction(message, signed.signatures), {
        preflightCommitment: "confirmed",
        maxRetries: 5,
      });
      log.info({ payoutId: work.payoutId, signature }, "solana payout sent");
    } catch (error) {
      if (error instanceof SendTransactionError) {
        // Refused in preflight: it never reached the cluster, so it cannot land later.
        await journal.forget(work.intentId, signature);
      }
      throw error;
    }
  }

  /** What the fee payer (the gas wallet) lost in the transaction: the fee plus any rent it paid. */
  async function gasSpent(txid: string): Promise<bigint | undefined> {
    const tx = await connection
      .getTransaction(txid, { commitment: "finalized", maxSupportedTransactionVersion: 0 })
      .catch(() => null);
    const before = tx?.meta?.preBalances[0];
    const after = tx?.meta?.postBalances[0];
    return before === undefined || after === undefined ? undefined : BigInt(before - after);
  }

  const done = async (txid: string) => {
    const gas = await gasSpent(txid);
    return gas === undefined ? { txid } : { txid, gasSpent: gas };
  };

  return {
    chain: "solana",
    async payout(work) {
      const deadline = Date.now() + attemptTimeoutMs;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`payout ${work.payoutId} not final in time`);
        const record = await journal.read(work.intentId);
        if (record.finalTxid) return done(record.finalTxid);
        const found = await statuses(record.signatures);
        const final = found.indexOf("final");
        if (final >= 0) {
          const txid = record.signatures[final]!;
          await journal.recordFinal(work.intentId, txid);
          return done(txid);
        }
        if (found.includes("landed")) {
          await sleep(pollMs);
          continue;
        }
        // A transaction in flight may still land until its blockhash expires: wait that out.
        if (found.includes("none") && record.lastValidBlockHeight !== null) {
          const height = BigInt(await connection.getBlockHeight("confirmed"));
          if (height <= record.lastValidBlockHeight) {
            await sleep(pollMs);
            continue;
          }
        }
        await send(work);
      }
    },
  };
}
