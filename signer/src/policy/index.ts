// The operator's policy: every rule the signer applies beyond a transaction's shape. One list,
// built from the configuration, so an auditor reads here what is enforced.
import type { SignerConfig } from "../config.js";
import type { PolicyRule } from "./rule.js";

export type { Facts, PolicyRule } from "./rule.js";

export function createPolicyRules(_config: SignerConfig, _now: () => Date = () => new Date()): PolicyRule[] {
  return [];
}
