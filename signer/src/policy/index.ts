// The operator's policy: every rule the signer applies beyond a transaction's shape. One list,
// built from the configuration, so an auditor reads here what is enforced.
import type { SignerConfig } from "../config.js";
import { createPayoutPolicy, isPayoutPolicy, type PayoutPolicy } from "./payouts.js";
import { createRefundAttestationRule } from "./refunds.js";
import type { PolicyRule } from "./rule.js";
import { createSupersessionRule } from "./supersession.js";

export type { PayoutPolicy, PayoutPolicyOptions } from "./payouts.js";
export { createPayoutPolicy } from "./payouts.js";
export type { Facts, PolicyRule, Replaced } from "./rule.js";
export { createSupersessionRule } from "./supersession.js";

export function createPolicyRules(
  config: Pick<SignerConfig, "payoutPolicy" | "refundAttestation" | "trustedApprovers">,
): PolicyRule[] {
  return [
    // Retries of failed refunds and payouts: the same effect, replacing an intent once.
    createSupersessionRule(),
    // Refunds only to an attested sender, never more than the attested transfer.
    ...(config.refundAttestation === "required"
      ? [createRefundAttestationRule(config.trustedApprovers)]
      : []),
    // Payouts: allow-listed destinations after a delay, bound and expiring approvals, velocity.
    createPayoutPolicy(config.payoutPolicy),
  ];
}

/** The payout policy among the rules: it also serves the allow-list RPCs. */
export function payoutPolicyOf(rules: readonly PolicyRule[]): PayoutPolicy | undefined {
  return rules.find(isPayoutPolicy);
}
