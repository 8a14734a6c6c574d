// Sweeps, refunds and payouts on Sui, each effect once per intent id, through the intent runner:
// sponsored sweeps (sender the deposit address, gas from the gas wallet) and refunds and payouts
// from the vault. The signer refunds only from the vault, so a refund owed from a deposit address
// first sweeps that amount to the vault (its own intent), then pays it out.
import type { KeyObject } from "node:crypto";
import { refundAttestation, type SettlementAdapter } from "@gateway/chain-kit";
import { buildSuiSweep, buildSuiTransfer } from "@gateway/chain-tx";
import type { Sql } from "@gateway/db";
import type { ChainPayoutWork, Coin, Mode, RefundWork, SweepWork } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import {
  type IntentInput,
  type ServiceAddressBook,
  type SignerClient,
  type SupersessionInput,
  signApproval,
} from "@gateway/signer-client";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import { createSuiIntentRunner, type SuiIntentRunner, type SuiIntentSpec } from "./intent-runner.js";

/** Sui's settlement adapter (the contract every chain's follows, packages/chain-kit). */
export type SuiSettlement = SettlementAdapter<"sui">;

export interface SuiSettlementOptions {
  sql: Sql;
  client: SuiGrpcClient;
  signer: SignerClient;
  log: Logger;
  /** Coin type per coin this chain carries. */
  coinTypes: Partial<Record<Coin, string>>;
  /** Settlement's refund approval key (the signer trusts its public half for refunds only). */
  approver: { keyId: string; key: KeyObject };
  /** MIST; must stay under the signer's SIGNER_SUI_MAX_GAS_BUDGET. */
  gasBudget?: bigint;
  /** How long to wait for a sent transaction's checkpoint before giving up (and retrying later). */
  finalityTimeoutMs?: number;
  /** Between two reads of the transactions waiting for a checkpoint (landing-poller.ts). */
  finalityPollMs?: number;
  /**
   * Intents deciding at once (default 4). Each holds a connection for its lock, and its signer
   * call takes another from the pool (the audit head, withAuditHeadCheck): at most half of
   * `sql`'s connections, or the holders can take them all and wait on each other.
   */
  decidingAtOnce?: number;
}

/** The signer's service addresses, asked once and kept, as the chain spells them. */
function serviceWallets(signer: SignerClient) {
  let book: ServiceAddressBook | undefined;
  return async (mode: Mode) => {
    book ??= await signer.getServiceAddresses();
    const w = book.sui[mode];
    return { vault: normalizeSuiAddress(w.vault), gas: normalizeSuiAddress(w.gas) };
  };
}

function coinTypeOf(coinTypes: SuiSettlementOptions["coinTypes"], coin: Coin): string {
  const type = coinTypes[coin];
  if (!type) throw new Error(`no Sui coin type configured for ${coin}`);
  return normalizeStructTag(type);
}

/** What the settlement's operations share. */
interface Settlement {
  runner: SuiIntentRunner;
  wallets: ReturnType<typeof serviceWallets>;
  coinType: (coin: Coin) => string;
}

/** Moves `amount` from a deposit address to the vault under a sweep intent. */
async function collect(
  { runner, wallets, coinType }: Settlement,
  intentId: string,
  work: SweepWork | RefundWork,
  amount: bigint,
) {
  const { vault, gas } = await wallets(work.mode);
  const type = coinType(work.coin);
  return runner.run({
    intentId,
    intent: (id) => ({
      intentId: id,
      kind: "sweep",
      chain: "sui",
      mode: work.mode,
      asset: type,
      amount,
      depositIndex: work.derivationIndex,
    }),
    coinType: type,
    source: normalizeSuiAddress(work.depositAddress),
    destination: vault,
    gasOwner: gas,
    amount,
    build: buildSuiSweep,
  });
}

/** Vault → destination for a refund or payout intent (a payout carries the API's approval). */
async function payFromVault(
  { runner, wallets }: Settlement,
  work: { intentId: string; mode: Mode; asset: string; amount: bigint; destination: string },
  intent: SuiIntentSpec["intent"],
) {
  const { vault, gas } = await wallets(work.mode);
  return runner.run({
    intentId: work.intentId,
    intent,
    coinType: work.asset,
    source: vault,
    destination: work.destination,
    gasOwner: gas,
    amount: work.amount,
    build: (input) =>
      buildSuiTransfer({
        sender: input.depositAddress,
        recipient: input.vault,
        coins: input.coins,
        amount: input.amount,
        gas: input.gas,
      }),
  });
}

/** The payout's signer intent under an attempt's id (the API's approval names attempt 1's). */
function payoutIntent(work: ChainPayoutWork, asset: string, destination: string) {
  return (id: string): IntentInput => ({
    intentId: id,
    kind: "payout",
    chain: "sui",
    mode: work.mode,
    asset,
    amount: work.amount,
    destination,
    reference: work.payoutId,
    ...(work.merchantId ? { merchantId: work.merchantId } : {}),
    ...(work.approval ? { approval: work.approval } : {}),
  });
}

/** The refund's signer intent under an attempt's id, approved with settlement's key. */
function refundIntent(
  work: RefundWork,
  asset: string,
  destination: string,
  approver: SuiSettlementOptions["approver"],
) {
  return (id: string, supersedes?: SupersessionInput): IntentInput => {
    // Settlement approves each attempt, a retry's `supersedes` with it.
    const intent: IntentInput = {
      intentId: id,
      kind: "refund",
      chain: "sui",
      mode: work.mode,
      asset,
      amount: work.amount,
      destination,
      reference: work.paymentId,
      ...refundAttestation(work, normalizeSuiAddress),
      ...(supersedes && { supersedes }),
    };
    return { ...intent, approval: signApproval({ intent, keyId: approver.keyId, privateKey: approver.key }) };
  };
}

/**
 * Sui settlement over the signer, idempotent per intent (intent-runner.ts): every signed
 * transaction is journaled before it is sent, and a retry resends or rebuilds only what can
 * never execute.
 */
export function createSuiSettlement(options: SuiSettlementOptions): SuiSettlement {
  const { sql, client, signer, log, approver } = options;
  const coinType = (coin: Coin) => coinTypeOf(options.coinTypes, coin);
  const runner = createSuiIntentRunner({
    sql,
    client,
    signer,
    log,
    gasCoinType: () => coinType("SUI"),
    gasBudget: options.gasBudget ?? 10_000_000n,
    finalityTimeoutMs: options.finalityTimeoutMs ?? 60_000,
    finalityPollMs: options.finalityPollMs,
    decidingAtOnce: options.decidingAtOnce ?? 4,
  });
  const settlement: Settlement = { runner, wallets: serviceWallets(signer), coinType };

  return {
    chain: "sui",

    async payout(work) {
      const asset = coinType(work.coin);
      const destination = normalizeSuiAddress(work.destination);
      const txid = await payFromVault(
        settlement,
        { ...work, asset, destination },
        payoutIntent(work, asset, destination),
      );
      return { txid };
    },

    async sweep(work) {
      return { txid: await collect(settlement, work.intentId, work, work.amount) };
    },

    async refund(work) {
      const asset = coinType(work.coin);
      // The signer pays refunds from the vault only: money still on the deposit address goes there first.
      if (work.from === "deposit") await collect(settlement, `sweep:${work.refundId}`, work, work.amount);
      const destination = normalizeSuiAddress(work.to);
      const txid = await payFromVault(
        settlement,
        { ...work, asset, destination },
        refundIntent(work, asset, destination, approver),
      );
      return { txid };
    },
  };
}
