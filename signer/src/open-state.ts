// Opens the signer's state: the audit chain, verified from its first line, replayed into a
// fresh ledger and the set of deposit indices handed out. One function, so the process, the
// tests and the benches start alike.

import { createIssuedIndices, type IssuedIndices } from "./addresses.js";
import { createApprovalVerifier, type TrustedApprover } from "./intents/approvals.js";
import { payoutPolicyOf } from "./policy/index.js";
import type { PolicyRule } from "./policy/rule.js";
import { createSignerCore, type SignerCore, type SignerCoreDeps } from "./signer-core.js";
import type { AuditLog } from "./state/audit-log.js";
import {
  createIntentLedger,
  type IntentLedger,
  type LedgerLimits,
  type SignedEntry,
} from "./state/ledger.js";
import { openAuditLog } from "./storage/audit-file.js";

export function openSignerState(
  auditPath: string,
  limits: LedgerLimits,
  now?: () => Date,
  rules: readonly PolicyRule[] = [],
): { ledger: IntentLedger; audit: AuditLog; issued: IssuedIndices } {
  // The ledger reads bound transactions back from the log (never during the replay that opens it).
  let audit: AuditLog | undefined;
  const ledger = createIntentLedger(limits, rules, (place) => audit!.read(place) as unknown as SignedEntry);
  const issued = createIssuedIndices();
  audit = openAuditLog(auditPath, {
    ...(now ? { now } : {}),
    replay(entry, place) {
      if (entry.decision === "signed" && entry.ledger)
        ledger.replay(entry as unknown as SignedEntry, new Date(entry.at), place);
      else if (entry.decision === "address") issued.replay(entry);
      else for (const rule of rules) rule.replayEntry?.(entry);
    },
  });
  return { ledger, audit, issued };
}

/**
 * The core over an opened state and the operator's rules: the payout policy among them keeps the
 * allow-lists, and only with it may a payout come without an approval (the scheduled payout,
 * which that policy sends only to the linked wallet). The process and the tests wire it alike.
 */
export function createSignerCoreWithRules(
  deps: Omit<SignerCoreDeps, "approvals" | "payouts">,
  trustedApprovers: TrustedApprover[],
  rules: readonly PolicyRule[],
): SignerCore {
  const payouts = payoutPolicyOf(rules);
  return createSignerCore({
    ...deps,
    approvals: createApprovalVerifier(trustedApprovers, { unapprovedPayoutsToLinked: Boolean(payouts) }),
    payouts,
  });
}

/** Lamports a nonce account holds: the rent-exempt minimum for its 80 bytes. */
export const SOLANA_NONCE_ACCOUNT_LAMPORTS = 1_447_680n;

/** The transaction limits from the configuration (or a test's values). */
export function signerLimits(config: {
  maxSuiGasBudget: bigint;
  maxSuiGasPrice: bigint;
  maxSolanaPriorityFeeLamports: bigint;
  maxSolanaNonceAccounts: number;
}) {
  return {
    maxSuiGasBudget: config.maxSuiGasBudget,
    maxSuiGasPrice: config.maxSuiGasPrice,
    maxSolanaPriorityFeeLamports: config.maxSolanaPriorityFeeLamports,
    solanaNonceAccountLamports: SOLANA_NONCE_ACCOUNT_LAMPORTS,
    maxSolanaNonceAccounts: config.maxSolanaNonceAccounts,
  };
}
