// Live payments and payouts through the cluster under faults, as a merchant and customers make
// them: the merchant's server creates the payment with its live key, the customer picks a chain
// on checkout and pays from their own wallet over the chain's RPC, the merchant pays out with
// an e-mailed code. Then what happened on chain is read back and compared with the books.
import type { Sql } from "@gateway/db";
import type { LiveParts } from "./cluster.js";
import type { BalanceChange, LiveChain } from "./live-chains.js";

export const LIVE_KINDS = ["exact", "partial", "under", "over", "late"] as const;
export type LiveKind = (typeof LIVE_KINDS)[number];
export const LIVE_FINAL: Record<LiveKind, string> = {
  exact: "completed",
  partial: "completed",
  under: "refunded",
  over: "completed",
  late: "refunded",
};
/** What an overpaying customer sends beyond the amount due (1 USDC). */
const SURPLUS = 1_000_000n;
/** Each payout asks for 1 USDC; its chain's network fee comes out of it. */
const PAYOUT_AMOUNT = 1_000_000n;

export type Request = (
  method: string,
  path: string,
  body: unknown,
  idempotencyKey: string,
  headers: Record<string, string>,
) => Promise<{ status: number; body: { id: string; error?: { code: string } } }>;

/** A merchant as the live stream acts for it: its live key, a dashboard session, its mailbox. */
export interface LiveMerchant {
  merchantId: string;
  email: string;
  liveKey: string;
  /** Authorization header of a dashboard session (payouts). */
  session: Record<string, string>;
}

export interface LiveContext {
  live: LiveParts;
  request: Request;
  /** A read or write retried across PostgreSQL restarts (the driver's own bookkeeping). */
  db<T>(query: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Payments go round-robin over these; payout k of each chain is merchant k's, so no merchant
   * asks for more payout codes than the API's 10 an hour.
   */
  merchants: LiveMerchant[];
  runId: number;
  /**
   * Whether PostgreSQL was restored from a backup (the `database-restored` fault) at or after
   * `since`: what the driver did for a payment before it may have been un-done.
   */
  restoredSince(since: number): boolean;
  /** Whether a restore's window (from its backup to the services' restart) overlaps [from, to]. */
  overlapsRestore(from: number, to: number): boolean;
  /** Resolves when the customer or merchant may act (the run may hold them while a restore's window is open). */
  gate(): Promise<void>;
}

export interface LivePaymentRecord {
  n: number;
  id: string;
  chain: LiveChain;
  kind: LiveKind;
  address: string;
  amountDue: bigint;
  payer: string;
  /** What the customer sent in all. */
  paid: bigint;
  /** What must come back to the customer. */
  refund: bigint;
  /**
   * The driver's actions overlapped a restore of the database from a backup, or a restore cut
   * the flow short: the payment may be gone or rolled back, so only money safety is checked (no
   * second sweep, no refund above what was paid or twice).
   */
  touchedByRestore: boolean;
}

export interface PayoutRecord {
  id: string;
  chain: LiveChain;
  destination: string;
  /** Requested while a restore's window was open: the payout may be gone (never signed) or put back. */
  touchedByRestore: boolean;
}

async function statusOf(ctx: LiveContext, id: string): Promise<string | undefined> {
  const rows = await ctx.db((sql) => sql<{ status: string }[]>`select status from payments where id = ${id}`);
  return rows[0]?.status;
}

/**
 * Waits for one of `wanted`; undefined when a restore of the database since `since` un-did what
 * the driver was waiting on (the customer gives up on that payment).
 */
async function waitStatus(
  ctx: LiveContext,
  id: string,
  wanted: string[],
  since: number,
  timeoutMs = 180_000,
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await statusOf(ctx, id);
    if (status && wanted.includes(status)) return status;
    if (ctx.restoredSince(since)) return undefined;
    if (Date.now() > deadline) throw new Error(`payment ${id} stayed ${status}, wanted ${wanted.join("/")}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Time passing: the shortest expiry the API accepts is 5 minutes, so the driver moves the
 * deadline to now instead of waiting. Row-locked like the actor's own writes.
 */
async function expireNow(ctx: LiveContext, id: string): Promise<void> {
  await ctx.gate();
  await ctx.db(
    (sql) => sql`update payments set expires_at = now(),
      state = jsonb_set(state, '{expiresAt}', to_jsonb((extract(epoch from now()) * 1000)::bigint))
      where id = ${id}`,
  );
}

/** Payment `n` of the live stream: chains alternate, kinds rotate, amounts 2 to 5 USD. */
export async function driveLivePayment(ctx: LiveContext, n: number): Promise<LivePaymentRecord> {
  const started = Date.now();
  const record = await driveLivePaymentSteps(ctx, n, started);
  return {
    ...record,
    touchedByRestore: record.touchedByRestore || ctx.overlapsRestore(started, Date.now()),
  };
}

async function driveLivePaymentSteps(
  ctx: LiveContext,
  n: number,
  started: number,
): Promise<LivePaymentRecord> {
  const chain: LiveChain = n % 2 === 0 ? "solana" : "sui";
  const kind = LIVE_KINDS[Math.floor(n / 2) % LIVE_KINDS.length]!;
  // Ten in a row (every kind on both chains) go to one merchant, so every merchant gets
  // completed payments, and balance, on both chains.
  const merchant = ctx.merchants[Math.floor(n / 10) % ctx.merchants.length]!;
  const created = await ctx.request(
    "POST",
    "/payments",
    { amount: 2 + (n % 4), currency: "USD", description: `live ${kind} on ${chain}` },
    `live-pay-${n}-${ctx.runId}`,
    { "x-api-key": merchant.liveKey },
  );
  if (created.status !== 201) throw new Error(`create live payment: ${JSON.stringify(created)}`);
  const id = created.body.id;
  const wallet = await ctx.request(
    "POST",
    `/payments/checkout/${id}/generate-wallet`,
    { chain, coin: "USDC" },
    `live-wallet-${n}-${ctx.runId}`,
    {},
  );
  // A payment created just before a backup may be gone after its restore: the customer never pays.
  if (wallet.status === 404 && ctx.restoredSince(started)) {
    return {
      n,
      id,
      chain,
      kind,
      address: "",
      amountDue: 0n,
      payer: "",
      paid: 0n,
      refund: 0n,
      touchedByRestore: true,
    };
  }
  if (wallet.status !== 200) throw new Error(`generate wallet: ${JSON.stringify(wallet)}`);
  const [deposit] = await ctx.db(
    (sql) => sql<{ address: string; amount_due: bigint }[]>`
      select address, amount_due from deposit_wallets where payment_id = ${id} and chain = ${chain}`,
  );
  const net = ctx.live[chain];
  const record = (payer: string, paid: bigint, refund: bigint, cutShort = false): LivePaymentRecord => ({
    n,
    id,
    chain,
    kind,
    address: deposit?.address ?? "",
    amountDue: deposit?.amount_due ?? 0n,
    payer,
    paid,
    refund,
    touchedByRestore: cutShort,
  });
  // A restore between the wallet and this read took the wallet away: the customer never pays.
  if (!deposit) return record("", 0n, 0n, true);
  const address = deposit.address;
  const due = deposit.amount_due;
  switch (kind) {
    case "exact": {
      const payer = net.newPayer();
      await ctx.gate();
      await payer.pay(address, due);
      return record(payer.address, due, 0n);
    }
    case "partial": {
      const payer = net.newPayer();
      const first = (due * 2n) / 5n;
      await ctx.gate();
      await payer.pay(address, first);
      if (!(await waitStatus(ctx, id, ["confirming", "completed"], started)))
        return record(payer.address, first, 0n, true);
      await ctx.gate();
      await payer.pay(address, due - first);
      return record(payer.address, due, 0n);
    }
    case "over": {
      const payer = net.newPayer();
      await ctx.gate();
      await payer.pay(address, due + SURPLUS);
      return record(payer.address, due + SURPLUS, SURPLUS);
    }
    case "under": {
      const half = due / 2n;
      const payer = net.newPayer();
      await ctx.gate();
      await payer.pay(address, half);
      // The transfer is seen before the deadline passes, so it is an underpayment, not a late one.
      if (!(await waitStatus(ctx, id, ["confirming"], started)))
        return record(payer.address, half, half, true);
      await expireNow(ctx, id);
      return record(payer.address, half, half);
    }
    case "late": {
      await expireNow(ctx, id);
      if (!(await waitStatus(ctx, id, ["expired"], started))) return record("", 0n, 0n, true);
      const payer = net.newPayer();
      await ctx.gate();
      await payer.pay(address, due);
      return record(payer.address, due, due);
    }
  }
}

async function available(ctx: LiveContext, merchantId: string, chain: LiveChain): Promise<bigint> {
  const [row] = await ctx.db(
    (sql) => sql<{ balance: bigint }[]>`select balance from ledger_balances
      where kind = 'merchant_available' and merchant_id = ${merchantId}
        and mode = 'live' and chain = ${chain} and coin = 'USDC'`,
  );
  return row?.balance ?? 0n;
}

/** A manual live payout of 1 USDC to a fresh address, once the balance allows it. */
export async function drivePayout(ctx: LiveContext, chain: LiveChain, k: number): Promise<PayoutRecord> {
  const started = Date.now();
  const payout = await drivePayoutSteps(ctx, chain, k);
  return { ...payout, touchedByRestore: ctx.overlapsRestore(started, Date.now()) };
}

async function drivePayoutSteps(
  ctx: LiveContext,
  chain: LiveChain,
  k: number,
): Promise<Omit<PayoutRecord, "touchedByRestore">> {
  const merchant = ctx.merchants[k % ctx.merchants.length]!;
  const deadline = Date.now() + 300_000;
  while ((await available(ctx, merchant.merchantId, chain)) < PAYOUT_AMOUNT) {
    if (Date.now() > deadline) throw new Error(`no ${chain} balance to pay out`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const destination = ctx.live[chain].newAddress();
  for (let attempt = 0; ; attempt++) {
    const since = ctx.live.mail.messages({ to: merchant.email })[0]?.id;
    const otp = await ctx.request(
      "POST",
      "/payouts/request-otp",
      { chain, destination_address: destination, mode: "live" },
      `otp-${chain}-${k}-${attempt}-${ctx.runId}`,
      merchant.session,
    );
    if (otp.status !== 202) throw new Error(`request payout code: ${JSON.stringify(otp)}`);
    await ctx.live.mail.waitForMail({
      to: merchant.email,
      subject: /payout code/,
      ...(since ? { afterId: since } : {}),
      timeoutMs: 60_000,
    });
    // A retried request may have mailed a second code that replaced the first: use the newest.
    await new Promise((r) => setTimeout(r, 300));
    // The newest code mail: the merchant also gets notices (a payout destination requested).
    const codeMail = ctx.live.mail
      .messages({ to: merchant.email })
      .find((m) => /payout code/.test(m.subject) && /\b\d{6}\b/.test(m.subject));
    const code = /\b(\d{6})\b/.exec(codeMail?.subject ?? "")?.[1];
    if (!code) throw new Error(`no payout code mail for ${merchant.email}`);
    const created = await ctx.request(
      "POST",
      "/payouts",
      {
        chain,
        coin_symbol: "USDC",
        amount: Number(PAYOUT_AMOUNT) / 1e6,
        destination_address: destination,
        otp: code,
        mode: "live",
      },
      `payout-${chain}-${k}-${attempt}-${ctx.runId}`,
      merchant.session,
    );
    if (created.status === 201) return { id: created.body.id, chain, destination };
    // Only an explicit refusal of the code is retried with a new one (and a new key): a
    // payout that was made but whose answer got lost must not be made twice.
    if (attempt >= 3 || created.status !== 400 || !/otp|code/.test(JSON.stringify(created.body))) {
      throw new Error(`create payout: ${JSON.stringify(created)}`);
    }
  }
}

export interface LiveFigures {
  payments: number;
  byKind: Record<string, number>;
  wrongFinalState: string[];
  payouts: number;
  payoutsNotCompleted: string[];
  /** Deposit → vault transactions seen on chain, against one per funded deposit. */
  sweeps: { onChain: number; expected: number };
  /** Vault → customer transactions seen on chain, against one per under-, over- and late payment. */
  refunds: { onChain: number; expected: number };
  /** Vault → destination transactions seen on chain, against one per payout. */
  payoutTransfers: { onChain: number; expected: number };
  /** Every mismatch between what each address should hold or have seen and what the chain says. */
  chainMismatches: string[];
  /** Per chain: the vault's USDC on chain against the ledger's platform_vault account. */
  vaults: { chain: LiveChain; onChain: bigint; ledger: bigint }[];
  /**
   * Payments and payouts a restore of the database overlapped: not in the counts above; checked
   * for money safety only. `heldAtDeposit`: deposits no payment in the restored database expects,
   * whose funds stay at the address (docs/operations.md).
   */
  touched: {
    payments: number;
    byFinalState: Record<string, number>;
    sweeps: number;
    refunds: number;
    payouts: number;
    payoutsPutBack: number;
    payoutsGone: number;
    heldAtDeposit: string[];
  };
}

/** The chain's record of every address the run touched, checked against what must have happened. */
export async function checkLive(
  ctx: LiveContext,
  payments: LivePaymentRecord[],
  payouts: PayoutRecord[],
  vaultDust: Record<LiveChain, bigint>,
): Promise<LiveFigures> {
  const ids = payments.map((p) => p.id);
  const statuses = new Map(
    (
      await ctx.db(
        (sql) =>
          sql<{ id: string; status: string }[]>`select id, status from payments where id = any(${ids})`,
      )
    ).map((r) => [r.id, r.status]),
  );
  const wrongFinalState = payments
    .filter((p) => !p.touchedByRestore && statuses.get(p.id) !== LIVE_FINAL[p.kind])
    .map((p) => `${p.chain} ${p.kind} ${p.id} → ${statuses.get(p.id)}`);
  const payoutRows = await ctx.db(
    (sql) => sql<{ id: string; status: string; amount: bigint; network_fee: bigint }[]>`
      select id, status, amount, network_fee from payouts where id = any(${payouts.map((p) => p.id)})`,
  );
  const payoutById = new Map(payoutRows.map((r) => [r.id, r]));
  // A payout a restore overlapped may be gone (never signed); one that is there must complete.
  const payoutsNotCompleted = payouts
    .filter((p) => payoutById.get(p.id)?.status !== "completed")
    .filter((p) => !p.touchedByRestore || payoutById.has(p.id))
    .map((p) => `${p.chain} ${p.id} → ${payoutById.get(p.id)?.status}`);
  const touched: LiveFigures["touched"] = {
    payments: 0,
    byFinalState: {},
    sweeps: 0,
    refunds: 0,
    payouts: 0,
    payoutsPutBack: 0,
    payoutsGone: 0,
    heldAtDeposit: [],
  };

  const mismatches: string[] = [];
  const sweeps = { onChain: 0, expected: 0 };
  const refunds = { onChain: 0, expected: 0 };
  const payoutTransfers = { onChain: 0, expected: 0 };
  const vaults: LiveFigures["vaults"] = [];
  for (const chain of ["solana", "sui"] as const) {
    const mine = payments.filter((p) => p.chain === chain);
    const destinations = payouts.filter((p) => p.chain === chain);
    const vault = ctx.live.vaults[chain];
    const changes = await ctx.live[chain].usdcChanges([
      ...mine.flatMap((p) => [p.address, p.payer]).filter((a) => a !== ""),
      ...destinations.map((p) => p.destination),
      vault,
    ]);
    const sum = (list: BalanceChange[]) => list.reduce((s, c) => s + c.delta, 0n);
    const vaultChanges = changes.get(vault) ?? [];
    const vaultTx = new Map(vaultChanges.map((c) => [c.txid, c.delta]));
    for (const p of mine) {
      // The deposit: the customer's transfers in, then exactly one sweep of all of it to the vault.
      const deposit = changes.get(p.address) ?? [];
      const outs = deposit.filter((c) => c.delta < 0n);
      if (p.touchedByRestore) {
        touched.payments++;
        const state = statuses.get(p.id) ?? "gone";
        touched.byFinalState[state] = (touched.byFinalState[state] ?? 0) + 1;
        if (!p.address) continue;
        const paidIn = sum(deposit.filter((c) => c.delta > 0n));
        const back = (changes.get(p.payer) ?? []).filter((c) => c.delta > 0n && vaultTx.has(c.txid));
        touched.sweeps += outs.length;
        touched.refunds += back.length;
        if (outs.length > 1) mismatches.push(`${chain} deposit ${p.address} swept ${outs.length} times`);
        if (outs.length === 1 && outs[0]!.delta !== -paidIn)
          mismatches.push(`${chain} deposit ${p.address}: swept ${outs[0]!.delta} of ${paidIn}`);
        if (outs.length === 0 && paidIn > 0n) touched.heldAtDeposit.push(`${chain} ${p.address}: ${paidIn}`);
        if (back.length > 1 || sum(back) > p.paid)
          mismatches.push(
            `${chain} customer of ${p.kind} ${p.id}: refunds ${back.map((c) => c.delta)}, paid ${p.paid}`,
          );
        continue;
      }
      sweeps.expected++;
      sweeps.onChain += outs.filter((c) => (vaultTx.get(c.txid) ?? 0n) > 0n).length;
      if (sum(deposit) !== 0n) mismatches.push(`${chain} deposit ${p.address} still holds ${sum(deposit)}`);
      if (outs.length !== 1 || outs[0]!.delta !== -p.paid) {
        mismatches.push(`${chain} deposit ${p.address} (${p.kind}): outgoing ${outs.map((c) => c.delta)}`);
      }
      // The customer: funded once by the faucet, paid, and refunded at most once, from the vault.
      const payer = changes.get(p.payer) ?? [];
      const back = payer.filter((c) => c.delta > 0n && vaultTx.has(c.txid));
      if (p.refund > 0n) refunds.expected++;
      refunds.onChain += back.length;
      if (sum(back) !== p.refund || back.length !== (p.refund > 0n ? 1 : 0)) {
        mismatches.push(
          `${chain} customer of ${p.kind} ${p.id}: refunds ${back.map((c) => c.delta)}, owed ${p.refund}`,
        );
      }
      if (sum(payer) !== p.refund)
        mismatches.push(`${chain} customer ${p.payer} holds ${sum(payer)}, owed ${p.refund}`);
    }
    for (const p of destinations) {
      const row = payoutById.get(p.id);
      const received = (changes.get(p.destination) ?? []).filter((c) => c.delta > 0n);
      if (p.touchedByRestore) {
        touched.payouts++;
        if (row) touched.payoutsPutBack++;
        else touched.payoutsGone++;
        // Gone: it must never have left the vault. There: once, for its net amount.
        if (!row && received.length > 0)
          mismatches.push(
            `${chain} payout ${p.id} left the vault (${received.map((c) => c.delta)}) with no record`,
          );
        if (row && (received.length !== 1 || received[0]!.delta !== row.amount - row.network_fee))
          mismatches.push(
            `${chain} payout ${p.id} to ${p.destination}: received ${received.map((c) => c.delta)}`,
          );
        continue;
      }
      payoutTransfers.expected++;
      payoutTransfers.onChain += received.filter((c) => vaultTx.has(c.txid)).length;
      const net = row ? row.amount - row.network_fee : -1n;
      if (received.length !== 1 || received[0]!.delta !== net) {
        mismatches.push(
          `${chain} payout ${p.id} to ${p.destination}: received ${received.map((c) => c.delta)}, net ${net}`,
        );
      }
    }
    const [ledger] = await ctx.db(
      (sql) => sql<{ balance: bigint }[]>`select balance from ledger_balances
        where kind = 'platform_vault' and merchant_id is null and mode = 'live' and chain = ${chain} and coin = 'USDC'`,
    );
    const onChain = await ctx.live[chain].usdcBalance(vault);
    vaults.push({ chain, onChain, ledger: ledger?.balance ?? 0n });
    if (onChain - vaultDust[chain] !== (ledger?.balance ?? 0n)) {
      mismatches.push(
        `${chain} vault holds ${onChain} (${vaultDust[chain]} of it dust), ledger says ${ledger?.balance ?? 0n}`,
      );
    }
  }
  const byKind: Record<string, number> = {};
  for (const p of payments) byKind[`${p.chain} ${p.kind}`] = (byKind[`${p.chain} ${p.kind}`] ?? 0) + 1;
  return {
    payments: payments.length,
    byKind,
    wrongFinalState,
    payouts: payouts.length,
    payoutsNotCompleted,
    sweeps,
    refunds,
    payoutTransfers,
    chainMismatches: mismatches,
    vaults,
    touched,
  };
}

/** True once every live payment is final and every payout completed (the settle loop's test). */
export async function liveSettled(
  ctx: LiveContext,
  payments: LivePaymentRecord[],
  payouts: PayoutRecord[],
): Promise<boolean> {
  const ids = payments.map((p) => p.id);
  const rows = await ctx.db(
    (sql) => sql<{ id: string; status: string }[]>`select id, status from payments where id = any(${ids})`,
  );
  const status = new Map(rows.map((r) => [r.id, r.status]));
  if (payments.some((p) => !p.touchedByRestore && status.get(p.id) !== LIVE_FINAL[p.kind])) return false;
  // Every payout completed; one a restore overlapped may be gone instead.
  const payoutStatus = new Map(
    (
      await ctx.db(
        (sql) => sql<{ id: string; status: string }[]>`select id, status from payouts
          where id = any(${payouts.map((p) => p.id)})`,
      )
    ).map((r) => [r.id, r.status]),
  );
  for (const p of payouts) {
    const s = payoutStatus.get(p.id);
    if (s !== "completed" && !(p.touchedByRestore && s === undefined)) return false;
  }
  // The books follow the chain: a refund counts once settlement has recorded its transaction.
  const unrecorded = await ctx.db(
    (sql) => sql<{ n: bigint }[]>`select count(*) as n from payments p
      where p.id = any(${ids}) and exists (
        select 1 from jsonb_array_elements(coalesce(p.state->'refunds', '[]'::jsonb)) r
        where r->>'txid' is null)`,
  );
  if (Number(unrecorded[0]!.n) > 0) return false;
  // Refunds leave after the payment turns final: wait until each customer holds what it is owed.
  for (const p of payments.filter((x) => x.refund > 0n && !x.touchedByRestore)) {
    if ((await ctx.live[p.chain].usdcBalance(p.payer)) !== p.refund) return false;
  }
  return true;
}
