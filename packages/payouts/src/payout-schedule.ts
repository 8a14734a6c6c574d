// The daily scheduled payout (docs/payouts.md, "Scheduled payouts": one free payout per merchant
// per day, gas paid by the service). The timer is the `next_run_at` column, so nothing is lost with a process, and
// replicas share the work through FOR UPDATE SKIP LOCKED.
import { type Mode, PAYOUT_COINS, type PayoutCoin } from "@gateway/contracts";
import { newId, type Sql, type TransactionSql } from "@gateway/db";
import { merchantBalances } from "@gateway/ledger";
import { createPayout, type PayoutSubjects } from "./payout-actor.js";
import type { PayoutRow } from "./payout-row.js";
import { payoutWallets } from "./payout-wallets.js";

const DAY_MS = 86_400_000;

/** Start of the UTC day holding `t`. */
const utcDay = (t: Date) => Math.floor(t.getTime() / DAY_MS) * DAY_MS;

/**
 * The next time the schedule fires: today at `hour` UTC if that is still ahead, else tomorrow.
 * A day that has had its run already (`lastRunAt`) is skipped, so moving the hour later in the
 * day cannot give a second free payout on it.
 */
export function nextRunAt(hour: number, now: Date, lastRunAt: Date | null = null): Date {
  let at = utcDay(now) + hour * 3_600_000;
  if (at <= now.getTime()) at += DAY_MS;
  if (lastRunAt && utcDay(new Date(at)) === utcDay(lastRunAt)) at += DAY_MS;
  return new Date(at);
}

export interface PayoutSchedule {
  merchant_id: string;
  mode: Mode;
  hour: number;
  enabled: boolean;
  minimum_amount: bigint;
  next_run_at: Date;
  last_run_at: Date | null;
  updated_at: Date;
}

/** A schedule is the merchant's for one mode. */
export interface ScheduleOwner {
  merchantId: string;
  mode: Mode;
}

/** Creates or changes a merchant's schedule for one mode; the next run follows from the hour. */
export async function setPayoutSchedule(
  sql: Sql,
  input: ScheduleOwner & { hour: number; enabled: boolean; minimumAmount: bigint },
  now = new Date(),
): Promise<PayoutSchedule> {
  return sql.begin(async (tx) => {
    const [current] = await tx<{ last_run_at: Date | null }[]>`
      select last_run_at from payout_schedules where merchant_id = ${input.merchantId} and mode = ${input.mode} for update`;
    const next = nextRunAt(input.hour, now, current?.last_run_at ?? null);
    const [row] = await tx<PayoutSchedule[]>`
      insert into payout_schedules (merchant_id, mode, hour, enabled, minimum_amount, next_run_at)
      values (${input.merchantId}, ${input.mode}, ${input.hour}, ${input.enabled}, ${input.minimumAmount}, ${next})
      on conflict (merchant_id, mode) do update set hour = excluded.hour, enabled = excluded.enabled,
        minimum_amount = excluded.minimum_amount, next_run_at = excluded.next_run_at, updated_at = now()
      returning *`;
    return row!;
  }) as Promise<PayoutSchedule>;
}

export async function getPayoutSchedule(sql: Sql, owner: ScheduleOwner): Promise<PayoutSchedule | undefined> {
  const [row] = await sql<PayoutSchedule[]>`
    select * from payout_schedules where merchant_id = ${owner.merchantId} and mode = ${owner.mode}`;
  return row;
}

/**
 * Runs at most `limit` due schedules, each in its own transaction: for every chain with a linked
 * payout wallet, the whole available balance of each payout coin (at least the merchant's
 * minimum) becomes a scheduled payout with no network fee, and the schedule moves to its next
 * day in the same commit. Returns the payouts created.
 */
export async function runDueSchedules(
  sql: Sql,
  subjects: PayoutSubjects,
  options: { now?: Date; limit?: number } = {},
): Promise<PayoutRow[]> {
  const now = options.now ?? new Date();
  const created: PayoutRow[] = [];
  for (let i = 0; i < (options.limit ?? 50); i++) {
    const ran = (await sql.begin(async (tx) => {
      const [schedule] = await tx<PayoutSchedule[]>`
        select * from payout_schedules where enabled and next_run_at <= ${now}
        order by next_run_at limit 1 for update skip locked`;
      if (!schedule) return null;
      const payouts = await payOutSchedule(tx, subjects, schedule);
      await tx`update payout_schedules set last_run_at = ${now},
          next_run_at = ${nextRunAt(schedule.hour, now, now)}
        where merchant_id = ${schedule.merchant_id} and mode = ${schedule.mode}`;
      return payouts;
    })) as PayoutRow[] | null;
    if (ran === null) break;
    created.push(...ran);
  }
  return created;
}

async function payOutSchedule(
  tx: TransactionSql,
  subjects: PayoutSubjects,
  schedule: PayoutSchedule,
): Promise<PayoutRow[]> {
  const wallets = await payoutWallets(tx, schedule.merchant_id);
  const balances = await merchantBalances(tx, schedule.merchant_id, schedule.mode);
  const minimum = schedule.minimum_amount > 0n ? schedule.minimum_amount : 1n;
  const payouts: PayoutRow[] = [];
  for (const balance of balances) {
    const wallet = wallets.find((w) => w.chain === balance.chain);
    if (!wallet || !(PAYOUT_COINS as readonly string[]).includes(balance.coin)) continue;
    if (balance.available < minimum) continue;
    const id = newId("po");
    const coin = balance.coin as PayoutCoin;
    payouts.push(
      await createPayout(tx, subjects, {
        id,
        // No approval: the signer sends a scheduled payout only to the merchant's linked wallet,
        // which it keeps on its own allow-list (linked after an e-mailed code and a delay).
        approval: null,
        merchantId: schedule.merchant_id,
        mode: schedule.mode,
        chain: balance.chain,
        coin,
        amount: balance.available,
        networkFee: 0n,
        destination: wallet.address,
        kind: "scheduled",
      }),
    );
  }
  return payouts;
}
