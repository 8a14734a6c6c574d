// Retrying a refund or payout whose transaction failed on chain (docs/signer.md, "Retries"). The
// retry is a new intent naming the one it replaces; a watcher's key attests the failure (checked
// with the approvals), and this rule checks that the replaced intent was signed, that the failed
// transaction is its transaction, that the retry moves exactly the same funds, and that an intent
// is replaced once. The refund and payout rules then release what the replaced intent used up.
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
