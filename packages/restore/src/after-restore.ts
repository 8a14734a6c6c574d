// After a restore of PostgreSQL from a backup, and before the services start again: what the
// database must learn again from the signer's own record (`signer record`), which no restore
// touches. Each step and why it is needed: docs/operations.md, "Restoring PostgreSQL from a backup".
import { randomBytes } from "node:crypto";
import { isChain } from "@gateway/chains";
import { type Chain, type Coin, type Mode, PAYOUT_COINS, type TransactionOutcome } from "@gateway/contracts";
import type { Sql, TransactionSql } from "@gateway/db";
import { bookInSuspense } from "@gateway/ledger";
import {
  createPayout,
  findPayout,
  MANUAL_PAYOUT_NETWORK_FEE,
  type PayoutCoin,
  type PayoutKind,
  type PayoutState,
  type PayoutSubjects,
} from "@gateway/payouts";

/** What `signer record` prints for a first signing: the intent as the audit log holds it. */
export interface SignedIntentView {
  intentId: string;
  kind: string;
  chain: string;
  mode: string;
  asset: string;
  amount: string;
  destination?: string;
  reference?: string;
  depositIndex?: number;
  merchantId?: string;
  approvalKeyId?: string;
}

export type SignerRecordLine =
  | { type: "address"; seq: number; chain: string; mode: string; index: number; address: string }
  | {
      type: "signed";
      seq: number;
      at: string;
      intent: SignedIntentView;
      /** The id the chain knows the transaction by (absent in entries older than that field). */
      txid?: string;
      transaction?: string;
    };

/** Reads `signer record`'s JSON lines; a line that is neither kind is an error, not skipped. */
export function parseSignerRecord(text: string): SignerRecordLine[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, i) => {
      const parsed = JSON.parse(line) as SignerRecordLine;
      if (parsed.type !== "address" && parsed.type !== "signed")
        throw new Error(`signer record line ${i + 1} is neither an address nor a signing`);
      return parsed;
    });
}

export interface AfterRestoreOptions {
  subjects: PayoutSubjects;
  record: SignerRecordLine[];
  /** The coin an asset is on a chain (mint, coin type or the native coin), as configured. */
  coinOf(chain: Chain, asset: string): Coin | undefined;
  /** What became of a transaction on a chain; a chain this run cannot reach is absent. */
  outcomeOf?: Partial<Record<Chain, (txid: string, transaction: Uint8Array) => Promise<TransactionOutcome>>>;
  /**
   * Only the chain step, for a later run once what was not seen on chain yet has landed or can no
   * longer: the other steps would change what the running services have done since.
   */
  chainsOnly?: boolean;
  /** For tests; a random one otherwise. */
  epoch?: string;
}

export interface AfterRestoreReport {
  epoch: string;
  /** Kept commands and recent events put back before the relays' cursors, to be published again. */
  republished: number;
  payoutsPutBack: Pick<PayoutState, "id" | "merchantId" | "mode" | "chain" | "coin" | "amount">[];
  payoutsNotPutBack: { intentId: string; reason: string }[];
  sequencesMoved: { sequence: string; to: number }[];
  addressesNoPaymentExpects: { chain: string; mode: string; index: number; address: string }[];
  /** Sweeps and refunds final on chain for deposit wallets the database does not have: booked in suspense. */
  suspense: SignedOnChain[];
  /** Sweeps and refunds for deposit wallets the database does not have, not (yet) booked, and why. */
  suspenseNotBooked: { intentId: string; reason: string }[];
}

/** A transfer the signer signed and its chain shows final, for no deposit wallet the database has. */
export interface SignedOnChain {
  intentId: string;
  kind: "sweep" | "refund";
  mode: Mode;
  chain: Chain;
  coin: Coin;
  amount: bigint;
  txid: string;
}

const isMode = (m: string): m is Mode => m === "live" || m === "test";
const isPayoutCoin = (c: Coin | undefined): c is PayoutCoin => PAYOUT_COINS.some((p) => p === c);

/** Everything in one transaction: an interrupted run changes nothing and is simply run again. */
export async function afterRestore(sql: Sql, options: AfterRestoreOptions): Promise<AfterRestoreReport> {
  const epoch =
    options.epoch ?? `restore-${new Date().toISOString().slice(0, 10)}-${randomBytes(6).toString("hex")}`;
  return (await sql.begin(async (tx) => {
    const report: AfterRestoreReport = {
      epoch,
      republished: 0,
      payoutsPutBack: [],
      payoutsNotPutBack: [],
      sequencesMoved: [],
      addressesNoPaymentExpects: [],
      suspense: [],
      suspenseNotBooked: [],
    };
    await bookFromChains(tx, options, report);
    if (options.chainsOnly) return report;
    await tx`update bus_epoch set epoch = ${epoch}, changed_at = now()`;
    report.republished = await rewindRelays(tx);
    await putBackPayouts(tx, options, report);
    await catchUpWithAddresses(tx, options, report);
    return report;
  })) as AfterRestoreReport;
}

/**
 * Publishes again under the new epoch what the lost bus may have carried: the whole outbox and 8 days
 * of events (JetStream keeps 7); consumers take what they applied as a no-op (docs/reliability.md).
 */
async function rewindRelays(tx: TransactionSql): Promise<number> {
  // Those rows take this transaction's id and the cursors stop just before it: a dump restored
  // into a new cluster may hold ids its counter has not reached, which no relay would pass.
  const [head] = await tx<{ xid: string; recent: string }[]>`
    select pg_current_xact_id()::text as xid, coalesce((select max(seq) from events
      where created_at < now() - interval '8 days'), 0)::text as recent`;
  const { xid, recent } = head!;
  await tx`update outbox set xid = ${xid}::xid8`;
  await tx`update events set xid = case when seq > ${recent}::bigint then ${xid}::xid8 else '0' end
    where seq > ${recent}::bigint or xid >= ${xid}::xid8`;
  await tx`update relay_cursors set xid = ${xid}::xid8, seq = 0`;
  const [pending] = await tx<{ n: number }[]>`
    select (select count(*) from outbox_pending) + (select count(*) from events_pending) as n`;
  return Number(pending!.n);
}

/** Payouts the signer signed that the database no longer has, put back as sent, or why not. */
async function putBackPayouts(tx: TransactionSql, options: AfterRestoreOptions, report: AfterRestoreReport) {
  for (const line of options.record) {
    if (line.type !== "signed" || line.intent.kind !== "payout") continue;
    const { intentId, chain, mode, asset, amount, destination, reference, merchantId, approvalKeyId } =
      line.intent;
    const skip = (reason: string) => report.payoutsNotPutBack.push({ intentId, reason });
    if (!reference || !merchantId || !destination) {
      skip("the signer's record names no payout, merchant or destination");
      continue;
    }
    if (await findPayout(tx, { id: reference })) continue;
    const coin = isChain(chain) ? options.coinOf(chain, asset) : undefined;
    if (!isChain(chain) || !isMode(mode) || !isPayoutCoin(coin)) {
      skip(`${chain} ${mode} ${asset} is not a payout coin this configuration knows`);
      continue;
    }
    if ((await tx`select 1 from merchants where id = ${merchantId}`).length === 0) {
      skip(`merchant ${merchantId} is not in the database`);
      continue;
    }
    // A manual payout carried the API's approval and was charged the fixed network fee on top
    // of what was sent; a scheduled one carries no approval and no fee (packages/payouts).
    const kind: PayoutKind = approvalKeyId ? "manual" : "scheduled";
    const networkFee = kind === "manual" ? MANUAL_PAYOUT_NETWORK_FEE[chain] : 0n;
    const row = await createPayout(tx, options.subjects, {
      id: reference,
      merchantId,
      mode,
      chain,
      coin,
      amount: BigInt(amount) + networkFee,
      networkFee,
      destination,
      kind,
      approval: null,
      alreadySent: true,
    });
    report.payoutsPutBack.push({ id: row.id, merchantId, mode, chain, coin, amount: row.amount });
  }
}

/**
 * Deposit index sequences moved past every index the signer handed out, and the addresses it
 * handed out that no payment expects listed.
 */
async function catchUpWithAddresses(
  tx: TransactionSql,
  options: AfterRestoreOptions,
  report: AfterRestoreReport,
) {
  const highest = new Map<string, number>();
  const handedOut: Extract<SignerRecordLine, { type: "address" }>[] = [];
  for (const line of options.record) {
    if (line.type !== "address" || !isChain(line.chain) || !isMode(line.mode)) continue;
    const sequence = `deposit_index_${line.chain}_${line.mode}`;
    highest.set(sequence, Math.max(highest.get(sequence) ?? -1, line.index));
    handedOut.push(line);
  }
  for (const [sequence, to] of highest) {
    const [moved] = await tx<{ last: bigint }[]>`
      select setval(${sequence}, greatest(${to}, last_value)) as last from ${tx(sequence)}`;
    report.sequencesMoved.push({ sequence, to: Number(moved!.last) });
  }
  if (handedOut.length > 0) {
    const known = new Set(
      (
        await tx<{ address: string }[]>`
          select address from deposit_wallets
          where address = any(${handedOut.map((l) => l.address)}::text[])`
      ).map((r) => r.address),
    );
    report.addressesNoPaymentExpects = handedOut
      .filter((l) => !known.has(l.address))
      .map(({ chain, mode, index, address }) => ({ chain, mode, index, address }));
  }
}

/**
 * Live sweeps and refunds in the signer's record that nothing in the database will ask for again:
 * a sweep whose deposit wallet, a refund whose payment's deposit wallet on that chain, the
 * database does not have (the payment gone, or kept without the wallet it was given after the
 * backup). Each final and successful on its chain is booked in
 * suspense once (its reference is the signer intent); a failed one moved nothing. Several signed
 * attempts of one sweep can stand in the record (docs/solana.md): at most one of them is final.
 */
async function bookFromChains(tx: TransactionSql, options: AfterRestoreOptions, report: AfterRestoreReport) {
  for (const line of options.record) {
    if (line.type !== "signed" || line.intent.mode !== "live") continue;
    const { intentId, kind, chain, asset, amount, depositIndex, reference } = line.intent;
    if ((kind !== "sweep" && kind !== "refund") || !isChain(chain)) continue;
    // What the watchers will see again is what the database's deposit wallets name: a payment
    // the restore kept but whose wallet was handed out after the backup has its refunds here too.
    const explained =
      kind === "sweep"
        ? await tx`select 1 from deposit_wallets
            where chain = ${chain} and mode = 'live' and derivation_index = ${depositIndex ?? -1}`
        : await tx`select 1 from deposit_wallets
            where chain = ${chain} and mode = 'live' and payment_id::text = ${reference ?? ""}`;
    if (explained.length > 0) continue;
    const skip = (reason: string) => report.suspenseNotBooked.push({ intentId, reason });
    const coin = options.coinOf(chain, asset);
    const outcomeOf = options.outcomeOf?.[chain];
    if (!coin) skip(`${chain} ${asset} is not a coin this configuration knows`);
    else if (!line.txid || !line.transaction)
      skip("the signer's record has no transaction id for it (signed before they were recorded)");
    else if (!outcomeOf) skip(`no ${chain} endpoint configured to ask what became of ${line.txid}`);
    else {
      const outcome = await outcomeOf(line.txid, Buffer.from(line.transaction, "base64"));
      if (outcome === "pending")
        skip(`${chain} ${line.txid} is not final yet and can still be: run again with --chains-only later`);
      // Failed, or never on chain and never able to be: it moved nothing.
      if (outcome !== "succeeded") continue;
      const movement = { intentId, mode: "live" as const, chain, coin, amount: BigInt(amount) };
      const booked = await bookInSuspense(tx, kind === "sweep" ? "received" : "paid", movement);
      if (booked) report.suspense.push({ ...movement, kind, txid: line.txid });
    }
  }
}
