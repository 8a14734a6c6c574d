// The operator's policy: every rule the signer applies beyond a transaction's shape. One list,
// built from the configuration, so an auditor reads here what is enforced.
import type { SignerConfig } from "../config.js";
import { createRefundAttestationRule } from "./refunds.js";
import type { PolicyRule } from "./rule.js";

export type { Facts, PolicyRule } from "./rule.js";

export function createPolicyRules(config: SignerConfig, _now: () => Date = () => new Date()): PolicyRule[] {
  return [
    // Refunds only to an attested sender, never more than the attested transfer.
    ...(config.refundAttestation === "required"
      ? [createRefundAttestationRule(config.trustedApprovers)]
      : []),
  ];
}
