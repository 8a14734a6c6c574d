// What the signer remembers without a database, rebuilt from the newest checkpoint and the audit
// chain after it: where each intent id's one transaction is in the log (and its hash), the inputs
// spent, sweeps per deposit, and today's totals. A repeat reads its entry back and checks the hash.
import { RefusalCode } from "@gateway/signer-proto";
import type { CheckedTransaction } from "../chains/signer-chain.js";
import { DepositCounts, type DepositCountsSnapshot } from "../deposit-counts.js";
import { IntentIndex } from "../intent-index.js";
import { intentEffect } from "../intents/intent.js";
import type { Facts, PolicyRule, Replaced } from "../policy/rule.js";
import { SUPERSESSION_RULE } from "../policy/supersession.js";
import { refuse } from "../refusal.js";
import type { SignerIntent } from "../vocabulary.js";
import type { AuditPlace } from "./audit-log.js";

export interface AssetCap {
  perIntent: bigint;
  perDay: bigint;
}

/** Keys are "<chain>:<asset>" (asset as the signer spells it) or "<chain>:*" as a fallback. */
export type CapTable = Map<string, AssetCap>;

export interface LedgerLimits {
  caps: CapTable;
  /** Worst-case fees per UTC day, per "<chain>:<mode>" or "<chain>" for every mode. */
  gasBudgets: Map<string, bigint>;
  /** First signings of sweeps per deposit key, ever. */
  maxSweepsPerDeposit: number;
}

/** The transaction an intent id is bound to: its first signing, returned again on every repeat. */
export interface BoundIntent {
  effect: string;
  transaction: Uint8Array;
  signers: string[];
  worstCaseFee: bigint;
}

/** One signing about to happen: the first of its intent, or a repeat of the bound transaction. */
export interface SigningPlan extends CheckedTransaction {
  intent: SignerIntent;
  first: boolean;
  transaction: Uint8Array;
}

/**
 * The ledger's part of a `signed` audit entry. With the entry's intent (its id and effect) and
 * signers, it is enough to rebuild the state by replay. Records written before carried the
 * intent's fields and the signers themselves (id to signers below); they are read as they are.
 */
export interface LedgerRecord {
  id?: string;
  effect?: string;
  kind?: SignerIntent["action"]["kind"];
  chain?: string;
  mode?: string;
  asset?: string;
  amount?: string;
  signers?: string[];
  fee: string;
  first: boolean;
  /** First signings only: the bound transaction (base64) and the inputs it locks. */
  transaction?: string;
  locks?: string[];
  deposit?: string;
  /** First signings: each policy rule's facts, by rule name. */
  policy?: Record<string, Facts>;
}

/** A `signed` audit entry, as the ledger reads it back. */
export type SignedEntry = { intent: Record<string, unknown>; signers?: string[]; ledger: LedgerRecord } & {
  txidBase64?: string;
};

/** What `auditView` adds to an intent's effect. */
const NOT_EFFECT = new Set(["intentId", "approvalKeyId", "approvalExpiresAtMs", "supersedes"]);

/**
 * The intent a record is about (id, effect, kind, chain, mode, asset, amount, signers): in the
 * entry it rides in (as `auditView` wrote it), or in the record itself when written before.
 */
function intentOf({ intent, signers, ledger: record }: SignedEntry): Partial<LedgerRecord> {
  if (record.id !== undefined) return record;
  // Copied key by key: rest and spread would cost three times as much, for every entry at start.
  const who: Record<string, unknown> = {};
  for (const key in intent) if (!NOT_EFFECT.has(key)) who[key] = intent[key];
  const effect = JSON.stringify(who);
  return Object.assign(who, { id: String(intent.intentId), effect, signers });
}

/** Reads a `signed` entry back from the audit log (`AuditLog.read`). */
export type ReadSignedEntry = (place: AuditPlace) => SignedEntry;

export interface LedgerSnapshot {
  intents: Buffer;
  locks: [lock: string, owner: string, at: number][];
  sweeps: DepositCountsSnapshot[];
  totals: [key: string, amount: string][];
}

// One string per UTC day, not one per call: every decision asks for it twice.
let lastDay = { n: Number.NaN, text: "" };
function utcDay(date: Date): string {
  const n = Math.floor(date.getTime() / 86_400_000);
  if (n !== lastDay.n) lastDay = { n, text: date.toISOString().slice(0, 10) };
  return lastDay.text;
}
const depositKey = (intent: SignerIntent) =>
  intent.action.kind === "sweep" ? `${intent.chain}:${intent.mode}:${intent.action.depositIndex}` : undefined;
const movesValue = (kind: string) => kind === "refund" || kind === "payout";

// The hash as 32 one-byte characters: half the memory of its hex spelling.
const packHash = (hex: string) => Buffer.from(hex, "hex").toString("latin1");
const unpackHash = (packed: string) => Buffer.from(packed, "latin1").toString("hex");

type Where = { chain: string; mode: string; asset: string };
const moved = (day: string, w: Where) => `moved|${day}|${w.chain}:${w.mode}:${w.asset}`;
const gas = (day: string, w: Where) => `gas|${day}|${w.chain}:${w.mode}`;

/**
 * The ledger's state and its rules: checks a signing plan, records it, binds its audit entry, and
 * is rebuilt from a checkpoint and the entries after it.
 */
export class IntentLedger {
  // Bound since the newest checkpoint; the ones before are in the compact index.
  readonly #intents = new Map<string, AuditPlace>();
  #index = new IntentIndex();
  // Insertion order is signing order, so a checkpoint drops the oldest locks from the front.
  readonly #lockOwners = new Map<string, { owner: string; at: number }>();
  #sweeps = new DepositCounts();
  readonly #dayTotals = new Map<string, bigint>();

  constructor(
    private readonly limits: LedgerLimits,
    private readonly rules: readonly PolicyRule[],
    private readonly read: ReadSignedEntry,
  ) {}

  /** The transaction bound to `intentId`, read back from its entry in the audit log. */
  bound(intentId: string): BoundIntent | undefined {
    const place = this.#placeOf(intentId);
    if (!place) return undefined;
    const entry = this.read(place);
    const who = intentOf(entry);
    const { transaction, fee } = entry.ledger;
    if (who.id !== intentId || transaction === undefined)
      throw new Error(`the audit entry bound to intent ${intentId} is another's`);
    return {
      effect: who.effect!,
      transaction: Buffer.from(transaction, "base64"),
      signers: who.signers ?? [],
      worstCaseFee: BigInt(fee),
    };
  }

  /** Binds a first signing, recorded with `record`, to the audit entry that carries it. */
  bind(intentId: string, { seq, offset, hash }: AuditPlace): void {
    this.#intents.set(intentId, { seq, offset, hash: packHash(hash) });
  }

  /** Refuses a plan that breaks a rule. Checks only: `record` changes the state. */
  check(plan: SigningPlan, at: Date): void {
    const { intent } = plan;
    const { limits, rules } = this;
    const day = utcDay(at);
    if (plan.first) {
      for (const lock of plan.locks) {
        const owner = this.#lockOwners.get(lock)?.owner;
        if (owner !== undefined && owner !== intent.intentId)
          refuse(RefusalCode.INPUT_IN_USE, `${lock} is bound to intent ${owner}`);
      }
      const deposit = depositKey(intent);
      if (deposit && this.#sweeps.get(deposit) >= limits.maxSweepsPerDeposit)
        refuse(RefusalCode.SWEEP_LIMIT_EXCEEDED, `${deposit}: ${limits.maxSweepsPerDeposit} sweeps already`);
      // Rules release what a replaced intent used up, so a retry is only checked where one is.
      if (intent.proto.supersedes && !rules.some((rule) => rule.name === SUPERSESSION_RULE))
        refuse(RefusalCode.SUPERSEDE_REFUSED, "this signer does not retry intents");
      const replaced = this.#replacedOf(intent);
      for (const rule of rules) rule.check(intent, at, replaced);
    }
    // Every signature counts against the caps and the gas budget, repeats included.
    if (movesValue(intent.action.kind)) {
      const cap = limits.caps.get(`${intent.chain}:${intent.asset}`) ?? limits.caps.get(`${intent.chain}:*`);
      if (!cap)
        refuse(RefusalCode.INTENT_CAP_EXCEEDED, `no cap is configured for ${intent.chain}:${intent.asset}`);
      if (intent.amount > cap.perIntent)
        refuse(RefusalCode.INTENT_CAP_EXCEEDED, "amount is over the per-intent cap");
      const today = this.#dayTotals.get(moved(day, intent)) ?? 0n;
      if (today + intent.amount > cap.perDay)
        refuse(RefusalCode.DAILY_CAP_EXCEEDED, "today's total would pass the cap");
    }
    const budget =
      limits.gasBudgets.get(`${intent.chain}:${intent.mode}`) ?? limits.gasBudgets.get(intent.chain);
    const spent = this.#dayTotals.get(gas(day, intent)) ?? 0n;
    if (budget === undefined || spent + plan.worstCaseFee > budget)
      refuse(RefusalCode.GAS_BUDGET_EXCEEDED, `over today's gas budget on ${intent.chain}`);
  }

  record(plan: SigningPlan, at: Date): LedgerRecord {
    const { intent } = plan;
    const record: LedgerRecord = { fee: plan.worstCaseFee.toString(), first: plan.first };
    if (plan.first) {
      record.transaction = Buffer.from(plan.transaction).toString("base64");
      record.locks = plan.locks;
      const deposit = depositKey(intent);
      if (deposit) record.deposit = deposit;
      const replaced = this.#replacedOf(intent);
      for (const rule of this.rules) {
        const facts = rule.facts?.(intent, replaced);
        if (facts) record.policy = { ...record.policy, [rule.name]: facts };
      }
    }
    // What a replay reads from the entry (`intentOf`), here from the intent itself.
    const { intentId: id, chain, mode, asset } = intent;
    const [effect, kind, amount] = [intentEffect(intent), intent.action.kind, intent.amount.toString()];
    const who = { id, effect, kind, chain, mode, asset, amount, signers: plan.signers };
    this.#apply(record, who, at);
    return record;
  }

  /** What it holds, which grows with every signing (metrics). */
  size() {
    const intents = this.#intents.size + this.#index.size;
    return { intents, locks: this.#lockOwners.size, deposits: this.#sweeps.size() };
  }

  /**
   * The state a checkpoint keeps: every bound intent as a compact record, the locks of intents
   * signed since `keepLocksSince` (Unix ms), the deposits' sweep counts and today's totals.
   */
  checkpoint(at: Date, keepLocksSince: number): LedgerSnapshot {
    this.#index = this.#index.merged(
      [...this.#intents].map(([id, p]) => [id, { ...p, hash: unpackHash(p.hash) }]),
    );
    this.#intents.clear();
    // A lock guards an input while its transaction may still land; past that, only liveness was at stake.
    for (const [lock, { at: lockedAt }] of this.#lockOwners) {
      if (lockedAt >= keepLocksSince) break;
      this.#lockOwners.delete(lock);
    }
    const today = utcDay(at);
    for (const key of this.#dayTotals.keys()) if (key.split("|")[1] !== today) this.#dayTotals.delete(key);
    return {
      intents: this.#index.bytes,
      locks: [...this.#lockOwners].map(([lock, o]) => [lock, o.owner, o.at]),
      sweeps: this.#sweeps.snapshot(),
      totals: [...this.#dayTotals].map(([key, amount]) => [key, amount.toString()]),
    };
  }

  /** Starts from a checkpoint's state (before the entries after it are replayed). */
  restore(snapshot: LedgerSnapshot): void {
    this.#index = new IntentIndex(snapshot.intents);
    for (const [lock, owner, at] of snapshot.locks) this.#lockOwners.set(lock, { owner, at });
    this.#sweeps = DepositCounts.restore(snapshot.sweeps);
    for (const [key, amount] of snapshot.totals) this.#dayTotals.set(key, BigInt(amount));
  }

  /** Applies a `signed` entry read back from the audit log, found at `place`. */
  replay(entry: SignedEntry, at: Date, place: AuditPlace): void {
    const who = intentOf(entry);
    this.#apply(entry.ledger, who, at);
    if (entry.ledger.first && entry.ledger.transaction !== undefined) this.bind(who.id!, place);
  }

  /** `who`: the record's intent (`intentOf`). */
  #apply(record: LedgerRecord, who: Partial<LedgerRecord>, at: Date): void {
    const day = utcDay(at);
    if (record.first && record.transaction !== undefined) {
      for (const lock of record.locks ?? []) this.#lockOwners.set(lock, { owner: who.id!, at: at.getTime() });
      if (record.deposit) this.#sweeps.add(record.deposit);
      for (const rule of this.rules)
        if (record.policy?.[rule.name]) rule.apply?.(record.policy[rule.name]!, at);
    }
    if (movesValue(who.kind!)) this.#add(moved(day, who as Where), BigInt(who.amount!));
    this.#add(gas(day, who as Where), BigInt(record.fee));
  }

  #add(key: string, amount: bigint): void {
    this.#dayTotals.set(key, (this.#dayTotals.get(key) ?? 0n) + amount);
  }

  #placeOf(intentId: string): AuditPlace | undefined {
    const recent = this.#intents.get(intentId);
    return recent ? { ...recent, hash: unpackHash(recent.hash) } : this.#index.find(intentId);
  }

  /** The bound intent a retry replaces, read back from its entry; undefined when never signed. */
  #replacedOf(intent: SignerIntent): Replaced | undefined {
    const id = intent.proto.supersedes?.intentId ?? "";
    const place = this.#placeOf(id);
    const entry = place && this.read(place);
    const policy = entry?.ledger.policy ?? {};
    return entry && { intentId: id, effect: intentOf(entry).effect!, txidBase64: entry.txidBase64, policy };
  }
}
