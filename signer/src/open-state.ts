// Opens the signer's state: the newest checkpoint's state, then the audit chain after it,
// verified and replayed into the ledger, the rules and the set of deposit indices handed out;
// and writes checkpoints as the chain grows. One function, so the process, the tests and the
// benches start alike.

import { createIssuedIndices, type IssuedIndices } from "./addresses.js";
import { createApprovalVerifier, type TrustedApprover } from "./intents/approvals.js";
import { payoutPolicyOf } from "./policy/index.js";
import type { PolicyRule } from "./policy/rule.js";
import { Refusal, RefusalCode } from "./refusal.js";
import { createSignerCore, type SignerCore, type SignerCoreDeps } from "./signer-core.js";
import type { AuditHead, AuditPlace } from "./state/audit-log.js";
import { IntentLedger, type LedgerLimits, type SignedEntry } from "./state/ledger.js";
import { ArchivedEntryError, type AuditFile, openAuditLog } from "./storage/audit-file.js";
import { decodeSnapshot, encodeSnapshot } from "./storage/checkpoint-state.js";

export interface CheckpointPolicy {
  /** A checkpoint after this many entries, */
  everyEntries: number;
  /** or this long after the last one, if anything was written since. */
  everyMs: number;
  /** Input locks of intents signed longer ago than this are not carried into a checkpoint. */
  keepLocksMs: number;
}

export const DEFAULT_CHECKPOINTS: CheckpointPolicy = {
  everyEntries: 50_000,
  everyMs: 60 * 60_000,
  keepLocksMs: 7 * 24 * 3_600_000,
};

export interface SignerState {
  ledger: IntentLedger;
  audit: AuditFile;
  issued: IssuedIndices;
  /** Writes a checkpoint now. */
  checkpoint(): AuditHead;
  /** Writes one when the policy says it is due; true if it did. */
  checkpointIfDue(): boolean;
}

export function openSignerState(
  auditPath: string,
  limits: LedgerLimits,
  now: () => Date = () => new Date(),
  rules: readonly PolicyRule[] = [],
  policy: CheckpointPolicy = DEFAULT_CHECKPOINTS,
): SignerState {
  // The ledger reads bound transactions back from the log (never during the replay that opens it).
  let audit: AuditFile | undefined;
  const read = (place: AuditPlace) => {
    try {
      return audit!.read(place) as unknown as SignedEntry;
    } catch (error) {
      if (!(error instanceof ArchivedEntryError)) throw error;
      throw new Refusal(
        RefusalCode.INTENT_ARCHIVED,
        `signed before, in audit entry ${error.seq}, whose archived segment is not on this host; nothing new is signed for it`,
      );
    }
  };
  const ledger = new IntentLedger(limits, rules, read);
  const issued = createIssuedIndices();
  audit = openAuditLog(auditPath, {
    now,
    restore(bytes) {
      const snapshot = decodeSnapshot(bytes);
      ledger.restore(snapshot.ledger);
      issued.restore(snapshot.issued);
      // A rule configured since the checkpoint was written starts from nothing, as it would have.
      for (const rule of rules) if (rule.name in snapshot.rules) rule.restore?.(snapshot.rules[rule.name]);
    },
    replay(entry, place) {
      if (entry.decision === "signed" && entry.ledger)
        ledger.replay(entry as unknown as SignedEntry, new Date(entry.at), place);
      else if (entry.decision === "address") issued.replay(entry);
      else for (const rule of rules) rule.replayEntry?.(entry);
    },
  });
  const opened = audit;

  function checkpoint(): AuditHead {
    const at = now();
    const snapshot = {
      ledger: ledger.checkpoint(at, at.getTime() - policy.keepLocksMs),
      rules: Object.fromEntries(rules.flatMap((r) => (r.snapshot ? [[r.name, r.snapshot()]] : []))),
      issued: issued.snapshot(),
    };
    const { intents, locks, deposits } = ledger.size();
    return opened.checkpoint(encodeSnapshot(snapshot), { intents, locks, deposits });
  }

  return {
    ledger,
    audit: opened,
    issued,
    checkpoint,
    checkpointIfDue() {
      const { entries, since } = opened.sinceCheckpoint();
      const due =
        entries >= policy.everyEntries || (entries > 0 && now().getTime() - since >= policy.everyMs);
      if (due) checkpoint();
      return due;
    },
  };
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
