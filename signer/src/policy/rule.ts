// A policy rule: what the operator allows beyond a transaction's shape (refund receivers, payout
// destinations, per-merchant amounts). Its state is rebuilt from the audit chain: facts ride in
// signings' ledger records, and its own decisions (an allow-list change) are entries it replays.
import type { SignerIntent } from "../vocabulary.js";

export type Facts = Record<string, string>;

/**
 * The bound intent a retry replaces (`SignerIntent.supersedes`), as its audit entry recorded it:
 * rules release what it used up (a refund's attested amount, a payout's reference).
 */
export interface Replaced {
  intentId: string;
  effect: string;
  /** The id the chain knows its transaction by (bytes, base64); absent in older entries. */
  txidBase64: string | undefined;
  /** Each rule's facts of its first signing, by rule name. */
  policy: Record<string, Facts>;
}

export interface PolicyRule {
  /** Key of this rule's facts in a ledger record. */
  readonly name: string;
  /** Throws a Refusal when the rule forbids a first signing of this intent (a retry: of `replaced`). */
  check(intent: SignerIntent, at: Date, replaced?: Replaced): void;
  /** What the rule keeps of a first signing; undefined when the intent is not its concern. */
  facts?(intent: SignerIntent, replaced?: Replaced): Facts | undefined;
  /** Applies a first signing's facts, when it is signed and when the chain is replayed. */
  apply?(facts: Facts, at: Date): void;
  /** Replays one of the rule's own audit entries (decisions that are not signings). */
  replayEntry?(entry: { decision: string; at: string; [field: string]: unknown }): void;
  /** The rule's state as plain JSON, for a checkpoint; `restore` starts from it. */
  snapshot?(): unknown;
  restore?(state: unknown): void;
}
