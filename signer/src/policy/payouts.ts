// The payout half of the policy: the signer's own allow-list (in effect after a cancellable delay),
// approvals bound to one payout, the linked wallet only for the unapproved daily payout, and daily
// limits per merchant and in total, replayed from the audit chain (docs/signer.md, "Policy").

import type { ModeName } from "@gateway/signer-proto";
import { RefusalCode } from "@gateway/signer-proto";
import { signerChain } from "../chains/index.js";
import { payoutMerchant } from "../intents/intent.js";
import { refuse } from "../refusal.js";
import type { ChainName, SignerIntent } from "../vocabulary.js";
import type { Facts, PolicyRule, Replaced } from "./rule.js";

export interface VelocityLimit {
  count: number;
  /** Base units, summed over every payout asset (payouts are in 6-decimal stablecoins). */
  amount: bigint;
}

export interface PayoutPolicyOptions {
  /** Seconds from a destination's request to its effect, per mode. */
  destinationDelaySeconds: Record<ModeName, number>;
  /** An approval expiring further ahead than this is refused like an expired one. */
  approvalMaxTtlSeconds: number;
  /** Per UTC day and mode: first signings of payouts per merchant and over all merchants. */
  limits: { perMerchant: VelocityLimit; total: VelocityLimit };
}

/** One allow-list entry; times are Unix ms. */
export interface DestinationRecord {
  merchantId: string;
  chain: ChainName;
  mode: ModeName;
  address: string;
  linked: boolean;
  requestedAt: number;
  effectiveAt: number;
  cancelled: boolean;
  cancelledAt: number;
}

/** Which entry: a merchant's address on a chain, in a mode. */
export type DestinationKey = Pick<DestinationRecord, "merchantId" | "chain" | "mode" | "address">;

export interface DestinationRequest extends DestinationKey {
  linked: boolean;
  /** The approval's expiry (Unix ms) and a digest of its signature (each is used once). */
  approvalExpiresAtMs: bigint;
  approvalDigest: string;
}

/** A change to the allow-list: the new entry and what its audit line carries for replay. */
export interface DestinationChange {
  destination: DestinationRecord;
  audit: { destination: DestinationRecord; approval?: string };
}

export const DESTINATION_REQUESTED = "payout_destination_requested";
export const DESTINATION_CANCELLED = "payout_destination_cancelled";
export const PAYOUT_RULE = "payouts";

interface PayoutSnapshot {
  destinations: DestinationRecord[];
  usedApprovals: string[];
  paid: [string, string][];
  totalsDay: string;
  totals: [string, number, string][];
}

export function isPayoutPolicy(rule: PolicyRule): rule is PayoutPolicy {
  return rule.name === PAYOUT_RULE && "requestDestination" in rule;
}

const MERCHANT_ID = /^[A-Za-z0-9_:.-]{1,128}$/;
const utcDay = (date: Date) => date.toISOString().slice(0, 10);
const entryKey = (d: DestinationKey) => `${d.merchantId}|${d.chain}|${d.mode}|${d.address}`;

/** The signer's spelling of an address (Sui: normalized), so list entries and intents compare equal. */
const canonicalDestination = (d: DestinationKey) =>
  signerChain(d.chain).canonicalAddress(d.address, "address");

export function createPayoutPolicy(options: PayoutPolicyOptions): PayoutPolicy {
  return new PayoutPolicy(options);
}

/** The payout rule, which also keeps the merchants' allow-lists (the desk's RPCs change them). */
export class PayoutPolicy implements PolicyRule {
  readonly name = PAYOUT_RULE;
  readonly #destinations = new Map<string, DestinationRecord>();
  readonly #usedApprovals = new Set<string>();
  /** "<mode>|<payout reference>" → the intent id that paid it. */
  readonly #paid = new Map<string, string>();
  #totalsDay = "";
  readonly #totals = new Map<string, { count: number; amount: bigint }>();
  readonly #maxTtlMs: bigint;

  constructor(private readonly options: PayoutPolicyOptions) {
    this.#maxTtlMs = BigInt(options.approvalMaxTtlSeconds) * 1000n;
  }

  check(intent: SignerIntent, at: Date, replaced?: Replaced): void {
    const action = intent.action;
    if (action.kind !== "payout") return;
    const merchantId = payoutMerchant(intent);
    if (!MERCHANT_ID.test(merchantId))
      refuse(RefusalCode.INVALID_INTENT, "merchant_id: 1-128 of [A-Za-z0-9_:.-]");
    const approval = intent.approval;
    if (approval) this.#checkExpiry(intent.proto.approval?.expiresAtMs ?? 0n, at);
    const payer = this.#paid.get(`${intent.mode}|${action.reference}`);
    // A retry takes over the reference from the payout it replaces, whose transaction failed.
    if (payer !== undefined && payer !== intent.intentId && payer !== replaced?.intentId)
      refuse(RefusalCode.APPROVAL_REUSED, `payout ${action.reference} was signed as ${payer}`);
    const entry = this.#destinations.get(entryKey({ ...intent, merchantId, address: action.destination }));
    if (!entry)
      refuse(RefusalCode.DESTINATION_NOT_ALLOWED, "the destination is not on the merchant's allow-list");
    if (entry.cancelled)
      refuse(RefusalCode.DESTINATION_NOT_ALLOWED, "the destination was cancelled by the merchant");
    if (at.getTime() < entry.effectiveAt)
      refuse(
        RefusalCode.DESTINATION_NOT_ALLOWED,
        `in effect from ${new Date(entry.effectiveAt).toISOString()}`,
      );
    if (!approval && !entry.linked)
      refuse(RefusalCode.DESTINATION_NOT_ALLOWED, "unapproved payouts go to the linked wallet only");
    this.#checkVelocity(intent, merchantId, at);
  }

  facts(intent: SignerIntent): Facts | undefined {
    if (intent.action.kind !== "payout") return undefined;
    return {
      intent: intent.intentId,
      merchant: payoutMerchant(intent),
      mode: intent.mode,
      reference: intent.action.reference,
      amount: intent.amount.toString(),
    };
  }

  apply(facts: Facts, at: Date): void {
    const { intent, merchant, mode, reference, amount } = facts;
    if (intent === undefined || merchant === undefined || mode === undefined || amount === undefined) return;
    if (reference !== undefined) this.#paid.set(`${mode}|${reference}`, intent);
    const day = utcDay(at);
    for (const key of [`${mode}|m:${merchant}`, `${mode}|*`]) this.#count(day, key, BigInt(amount));
  }

  snapshot(): PayoutSnapshot {
    return {
      destinations: [...this.#destinations.values()],
      usedApprovals: [...this.#usedApprovals],
      paid: [...this.#paid],
      totalsDay: this.#totalsDay,
      totals: [...this.#totals].map(([k, t]): [string, number, string] => [k, t.count, t.amount.toString()]),
    };
  }

  restore(state: unknown): void {
    const s = state as PayoutSnapshot;
    for (const d of s.destinations) this.#destinations.set(entryKey(d), d);
    for (const digest of s.usedApprovals) this.#usedApprovals.add(digest);
    for (const [reference, intent] of s.paid) this.#paid.set(reference, intent);
    this.#totalsDay = s.totalsDay;
    for (const [key, n, amount] of s.totals) this.#totals.set(key, { count: n, amount: BigInt(amount) });
  }

  replayEntry(entry: { decision: string; [field: string]: unknown }): void {
    if (entry.decision !== DESTINATION_REQUESTED && entry.decision !== DESTINATION_CANCELLED) return;
    const record = entry.destination as DestinationRecord | undefined;
    if (record) this.#setDestination(record);
    if (typeof entry.approval === "string") this.#usedApprovals.add(entry.approval);
  }

  /** Checks an approved request and changes the allow-list; the caller audits `audit`. */
  requestDestination(request: DestinationRequest, at: Date): DestinationChange {
    if (!MERCHANT_ID.test(request.merchantId))
      refuse(RefusalCode.INVALID_INTENT, "merchant_id must be 1-128 characters of [A-Za-z0-9_:.-]");
    const address = canonicalDestination(request);
    this.#checkExpiry(request.approvalExpiresAtMs, at);
    if (this.#usedApprovals.has(request.approvalDigest))
      refuse(RefusalCode.APPROVAL_REUSED, "this approval was already used");
    const now = at.getTime();
    const existing = this.#destinations.get(entryKey({ ...request, address }));
    // A live entry keeps its time of effect: asking again never restarts (or skips) the delay.
    const record: DestinationRecord =
      existing && !existing.cancelled
        ? { ...existing, linked: existing.linked || request.linked }
        : {
            merchantId: request.merchantId,
            chain: request.chain,
            mode: request.mode,
            address,
            linked: request.linked,
            requestedAt: now,
            effectiveAt: now + this.options.destinationDelaySeconds[request.mode] * 1000,
            cancelled: false,
            cancelledAt: 0,
          };
    this.#setDestination(record);
    this.#usedApprovals.add(request.approvalDigest);
    return {
      destination: { ...record },
      audit: { destination: { ...record }, approval: request.approvalDigest },
    };
  }

  /** Undefined when the address was never requested. Cancelling an entry again changes nothing. */
  cancelDestination(request: DestinationKey, at: Date): DestinationChange | undefined {
    const address = canonicalDestination(request);
    const existing = this.#destinations.get(entryKey({ ...request, address }));
    if (!existing) return undefined;
    const record: DestinationRecord = existing.cancelled
      ? { ...existing }
      : { ...existing, linked: false, cancelled: true, cancelledAt: at.getTime() };
    this.#setDestination(record);
    return { destination: { ...record }, audit: { destination: { ...record } } };
  }

  listDestinations(merchantId: string): DestinationRecord[] {
    return [...this.#destinations.values()]
      .filter((d) => d.merchantId === merchantId)
      .sort((a, b) => a.requestedAt - b.requestedAt)
      .map((d) => ({ ...d }));
  }

  #setDestination(record: DestinationRecord): void {
    if (record.linked) {
      // One linked wallet per merchant, chain and mode: linking another unlinks the previous.
      for (const other of this.#destinations.values())
        if (entryKey({ ...other, address: record.address }) === entryKey(record)) other.linked = false;
    }
    this.#destinations.set(entryKey(record), { ...record });
  }

  #checkExpiry(expiresAtMs: bigint, at: Date): void {
    const now = BigInt(at.getTime());
    if (expiresAtMs === 0n) refuse(RefusalCode.APPROVAL_EXPIRED, "the approval carries no expiry");
    if (expiresAtMs <= now) refuse(RefusalCode.APPROVAL_EXPIRED, "the approval has expired");
    if (expiresAtMs - now > this.#maxTtlMs)
      refuse(RefusalCode.APPROVAL_EXPIRED, `approvals last ${this.options.approvalMaxTtlSeconds} s at most`);
  }

  /** Only one day's totals are kept: replay runs oldest first, so earlier days are done with. */
  #todayOf(day: string, key: string) {
    return (day === this.#totalsDay ? this.#totals.get(key) : undefined) ?? { count: 0, amount: 0n };
  }

  #count(day: string, key: string, amount: bigint): void {
    if (day > this.#totalsDay) {
      this.#totals.clear();
      this.#totalsDay = day;
    }
    if (day !== this.#totalsDay) return;
    const today = this.#todayOf(day, key);
    this.#totals.set(key, { count: today.count + 1, amount: today.amount + amount });
  }

  #checkVelocity(intent: SignerIntent, merchantId: string, at: Date): void {
    const day = utcDay(at);
    const checks: [string, VelocityLimit, string][] = [
      [`${intent.mode}|m:${merchantId}`, this.options.limits.perMerchant, `merchant ${merchantId}`],
      [`${intent.mode}|*`, this.options.limits.total, "all merchants"],
    ];
    for (const [key, limit, who] of checks) {
      const today = this.#todayOf(day, key);
      if (today.count + 1 > limit.count)
        refuse(RefusalCode.VELOCITY_EXCEEDED, `${who}: ${limit.count} payouts today already`);
      if (today.amount + intent.amount > limit.amount)
        refuse(RefusalCode.VELOCITY_EXCEEDED, `${who}: over ${limit.amount} base units today`);
    }
  }
}
