// After a restore of PostgreSQL from a backup, and before the services start again: what the
// database must learn again from the signer's own record (`signer record`), which no restore
// touches (docs/operations.md, "Restoring PostgreSQL from a backup").
//
// - A new bus epoch, so what the restore un-happened and services now publish again is not
//   dropped by JetStream as a copy of what was published before (packages/bus, message-id.ts).
// - Outbox messages published that no consumer has on record as handled are published again: a
//   message consumed after the backup was taken had its effect rolled back, but JetStream will
//   not deliver it again. Consumers skip what their restored records say they handled.
// - Payouts the signer signed that the database no longer has: put back as pending, reserved
//   whatever the balance, so settlement asks for them again and gets the same transaction (a
//   repeat of a bound intent needs no approval), sees it final and books it. Without this the
//   money would have left the vault with no record, and the merchant's balance would still hold
//   it: a second payout of the same funds.
// - Deposit index sequences moved past every index the signer handed out.
// - Deposit addresses the signer handed out that no payment in the database expects: a customer
//   may still pay them. They are listed for the operator; the funds stay at the address.
// Sweeps and refunds need nothing here: their intent ids follow from the payment and the
// transfer, so when the watchers see the deposits again they are signed again as the same
// transaction (docs/signer.md, "Exactly once").
import { randomBytes } from "node:crypto";
import type { Chain, Mode } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import {
  createPayout,
  MANUAL_PAYOUT_NETWORK_FEE,
  type PayoutCoin,
  type PayoutKind,
  type PayoutSubjects,
} from "./payouts.js";

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
  merchantId?: string;
  approvalKeyId?: string;
}

export type SignerRecordLine =
  | { type: "address"; seq: number; chain: string; mode: string; index: number; address: string }
  | { type: "signed"; seq: number; at: string; intent: SignedIntentView; transaction?: string };

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
  /** The payout coin an asset is on a chain (mint, coin type or the native coin), as configured. */
  coinOf(chain: Chain, asset: string): PayoutCoin | undefined;
  /** For tests; a random one otherwise. */
  epoch?: string;
}

export interface AfterRestoreReport {
  epoch: string;
  /** Outbox messages marked for publishing again. */
  republished: number;
  payoutsPutBack: {
    id: string;
    merchantId: string;
    mode: Mode;
    chain: Chain;
    coin: PayoutCoin;
    amount: bigint;
  }[];
  payoutsNotPutBack: { intentId: string; reason: string }[];
  sequencesMoved: { sequence: string; to: number }[];
  addressesNoPaymentExpects: { chain: string; mode: string; index: number; address: string }[];
}

const isChain = (c: string): c is Chain => c in MANUAL_PAYOUT_NETWORK_FEE;
const isMode = (m: string): m is Mode => m === "live" || m === "test";

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
    };
    await tx`update bus_epoch set epoch = ${epoch}, changed_at = now()`;
    report.republished = (
      await tx`update outbox set published_at = null where published_at is not null
        and not exists (select 1 from processed_messages p where p.message_id = outbox.id)`
    ).count;

    for (const line of options.record) {
      if (line.type !== "signed" || line.intent.kind !== "payout") continue;
      const { intentId, chain, mode, asset, amount, destination, reference, merchantId, approvalKeyId } =
        line.intent;
      const skip = (reason: string) => report.payoutsNotPutBack.push({ intentId, reason });
      if (!reference || !merchantId || !destination) {
        skip("the signer's record names no payout, merchant or destination");
        continue;
      }
      if ((await tx`select 1 from payouts where id = ${reference}`).length > 0) continue;
      const coin = isChain(chain) ? options.coinOf(chain, asset) : undefined;
      if (!isChain(chain) || !isMode(mode) || !coin) {
        skip(`${chain} ${mode} ${asset} is not a payout coin this configuration knows`);
        continue;
      }
      if ((await tx`select 1 from merchants where id = ${merchantId}`).length === 0) {
        skip(`merchant ${merchantId} is not in the database`);
        continue;
      }
      // A manual payout carried the API's approval and was charged the fixed network fee on top
      // of what was sent; a scheduled one carries no approval and no fee (packages/ledger, payouts.ts).
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
            select address from deposit_wallets where address in ${tx(handedOut.map((l) => l.address))}`
        ).map((r) => r.address),
      );
      report.addressesNoPaymentExpects = handedOut
        .filter((l) => !known.has(l.address))
        .map(({ chain, mode, index, address }) => ({ chain, mode, index, address }));
    }
    return report;
  })) as AfterRestoreReport;
}
