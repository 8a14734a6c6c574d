// A retry replaces an intent whose transaction a watcher attested failed: the replaced intent was
// signed, the failure is its transaction's, the funds are the same, once (docs/signer.md, "Retries").
import { RefusalCode } from "@gateway/signer-proto";
import bs58 from "bs58";
import { intentEffect } from "../intents/intent.js";
import { refuse } from "../refusal.js";
import type { PolicyRule } from "./rule.js";

export const SUPERSESSION_RULE = "supersedes";

export interface SupersessionRule extends PolicyRule {
  /** The state this rule adds, for checkpoints: [replaced intent id, the retry's id] pairs. */
  snapshot(): [string, string][];
  restore(state: unknown): void;
}

export function createSupersessionRule(): SupersessionRule {
  /** Replaced intent id → the retry that replaced it. */
  const replacedBy = new Map<string, string>();

  return {
    name: SUPERSESSION_RULE,

    check(intent, _at, replaced) {
      const s = intent.proto.supersedes;
      if (!s) return;
      if (!replaced) refuse(RefusalCode.SUPERSEDE_REFUSED, `intent ${s.intentId} was never signed`);
      const by = replacedBy.get(s.intentId);
      if (by !== undefined)
        refuse(RefusalCode.SUPERSEDE_REFUSED, `intent ${s.intentId} was retried as ${by}`);
      if (replaced.effect !== intentEffect(intent))
        refuse(RefusalCode.SUPERSEDE_REFUSED, "a retry moves exactly what the intent it replaces moved");
      const txid = replaced.txidBase64 && bs58.encode(Buffer.from(replaced.txidBase64, "base64"));
      if (txid !== s.failure?.txid)
        refuse(
          RefusalCode.FAILURE_NOT_ATTESTED,
          `the failure attested is not of ${s.intentId}'s transaction`,
        );
    },

    facts(intent) {
      const s = intent.proto.supersedes;
      return s && { replaces: s.intentId, by: intent.intentId, txid: s.failure?.txid ?? "" };
    },

    apply: (facts) => void replacedBy.set(facts.replaces!, facts.by!),

    snapshot: () => [...replacedBy],

    restore(state) {
      replacedBy.clear();
      for (const [replaced, by] of state as [string, string][]) replacedBy.set(replaced, by);
    },
  };
}
