// Refunds go back only where a watcher saw the money come from. A watcher (not settlement)
// attests each final transfer with its own key; a refund must carry the attestation of the
// transfer it returns, go to its sender, and refunds against one transfer never add up to more
// than its amount. Settlement alone, or whoever holds its approval key, cannot invent a refund.
import { type KeyObject, verify } from "node:crypto";
import { attestationMessage, RefusalCode } from "@gateway/signer-proto";
import { signerChain } from "../chains/index.js";
import type { TrustedApprover } from "../intents/approvals.js";
import { ed25519PublicKeyObject } from "../keys/ed25519.js";
import { refuse } from "../refusal.js";
import type { SignerIntent } from "../vocabulary.js";
import type { PolicyRule, Replaced } from "./rule.js";

/** What a retry gives back: the amount its replaced refund took from `transfer`, if any. */
const releasedBy = (replaced: Replaced | undefined, transfer: string) => {
  const old = replaced?.policy.refunds;
  return old?.transfer === transfer ? BigInt(old.amount!) : 0n;
};

export function createRefundAttestationRule(approvers: readonly TrustedApprover[]): PolicyRule {
  const attestors = new Map<string, KeyObject>(
    approvers
      .filter((a) => a.approves === "transfer")
      .map((a) => [a.keyId, ed25519PublicKeyObject(a.publicKey)]),
  );
  const refunded = new Map<string, bigint>();

  function attested(intent: SignerIntent) {
    const kind = intent.proto.kind;
    if (kind.case !== "refund" || intent.action.kind !== "refund") return undefined;
    const a = kind.value.attestation;
    if (!a)
      refuse(RefusalCode.NOT_ATTESTED, "a refund needs a watcher's attestation of the transfer it returns");
    const key = attestors.get(a.keyId);
    if (!key) refuse(RefusalCode.NOT_ATTESTED, `attestation key ${a.keyId} is not a trusted watcher's`);
    // The chain, mode and asset signed are the intent's own: an attestation for another never verifies.
    const message = attestationMessage({ ...a, chain: intent.chain, mode: intent.mode, asset: intent.asset });
    if (!verify(null, message, key, a.signature))
      refuse(RefusalCode.NOT_ATTESTED, "the attestation does not verify for this transfer");
    const sender = signerChain(intent.chain).spellAddress?.(a.sender) ?? a.sender;
    if (sender !== intent.action.destination)
      refuse(RefusalCode.NOT_ATTESTED, "a refund goes only to the attested sender of the transfer");
    return { transfer: `${intent.chain}:${intent.mode}:${a.transferId}`, amount: a.amount };
  }

  return {
    name: "refunds",
    check(intent, _at, replaced) {
      const transfer = attested(intent);
      if (!transfer) return;
      // A retry replaces a refund whose transaction failed on chain: its amount never left.
      const before = (refunded.get(transfer.transfer) ?? 0n) - releasedBy(replaced, transfer.transfer);
      if (before + intent.amount > transfer.amount)
        refuse(RefusalCode.OVER_ATTESTED, `over the attested ${transfer.amount} of ${transfer.transfer}`);
    },
    facts(intent, replaced) {
      const transfer = attested(intent);
      const old = replaced?.policy.refunds;
      return (
        transfer && {
          transfer: transfer.transfer,
          amount: intent.amount.toString(),
          ...(old?.transfer !== undefined && { released: old.amount!, releasedFrom: old.transfer }),
        }
      );
    },
    apply(facts) {
      const add = (key: string, amount: bigint) => refunded.set(key, (refunded.get(key) ?? 0n) + amount);
      add(facts.transfer!, BigInt(facts.amount!));
      if (facts.releasedFrom !== undefined) add(facts.releasedFrom, -BigInt(facts.released!));
    },
    // Kept for good: an attestation never expires, so neither may what was refunded against it.
    snapshot: () => [...refunded].map(([transfer, amount]) => [transfer, amount.toString()]),
    restore(state) {
      for (const [transfer, amount] of state as [string, string][]) refunded.set(transfer, BigInt(amount));
    },
  };
}
