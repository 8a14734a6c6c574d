// Refunds need an approval from settlement and payouts one from the API (made after the
// OTP check): an ed25519 signature over the intent's canonical encoding by a trusted key.
// Each key approves one kind only, so a leaked settlement key cannot authorise payouts.

import type { KeyObject } from "node:crypto";
import {
  approvalMessage,
  destinationMessage,
  failureMessage,
  RefusalCode,
  type RequestPayoutDestinationRequest,
} from "@gateway/signer-proto";
import { ed25519PublicKeyObject, ed25519Verify } from "../keys/ed25519.js";
import { refuse } from "../refusal.js";
import type { SignerIntent } from "../vocabulary.js";

export interface TrustedApprover {
  keyId: string;
  /** Which intents this key may approve; "transfer": a watcher's key that attests transfers. */
  approves: "refund" | "payout" | "transfer";
  /** Raw 32-byte ed25519 public key. */
  publicKey: Uint8Array;
}

type Approvable = TrustedApprover["approves"];
type Approval = { keyId: string; signature: Uint8Array };

export interface ApprovalVerifier {
  verify(intent: SignerIntent): void;
  /** A payout destination request needs the approval of a key trusted for payouts. */
  verifyDestination(request: RequestPayoutDestinationRequest): void;
}

export interface ApprovalVerifierOptions {
  /**
   * A payout without an approval is passed on to the payout policy, which sends it only to the
   * merchant's linked, allow-listed wallet (scheduled payouts). Set only with that policy in the rules.
   */
  unapprovedPayoutsToLinked?: boolean;
}

export function createApprovalVerifier(
  approvers: TrustedApprover[],
  options: ApprovalVerifierOptions = {},
): ApprovalVerifier {
  const keys = new Map<string, { approves: Approvable; key: KeyObject }>();
  for (const { keyId, approves, publicKey } of approvers) {
    if (keys.has(keyId)) throw new Error(`approver key id ${keyId} is listed twice`);
    keys.set(keyId, { approves, key: ed25519PublicKeyObject(publicKey) });
  }
  /** Refuses an approval that is missing, by an unknown key, by a key for another kind, or forged. */
  function check(approval: Approval | undefined, kind: Approvable, message: Uint8Array, what: string): void {
    if (!approval || approval.signature.length === 0)
      refuse(RefusalCode.APPROVAL_MISSING, `a ${what} needs an approval`);
    const trusted = keys.get(approval.keyId);
    if (!trusted) refuse(RefusalCode.APPROVAL_INVALID, `approval key ${approval.keyId} is not trusted`);
    if (trusted.approves !== kind)
      refuse(RefusalCode.APPROVAL_INVALID, `key ${approval.keyId} may not approve a ${what}`);
    if (!ed25519Verify(trusted.key, message, approval.signature))
      refuse(RefusalCode.APPROVAL_INVALID, "the approval signature does not verify");
  }

  /** A retry's evidence: a watcher's key (never an approver's) attests the replaced transaction failed. */
  function failureAttested(intent: SignerIntent, f: { keyId: string; signature: Uint8Array; txid: string }) {
    const watcher = keys.get(f.keyId);
    const message = failureMessage({ ...intent, txid: f.txid });
    return watcher?.approves === "transfer" && ed25519Verify(watcher.key, message, f.signature);
  }

  return {
    verify(intent) {
      const kind = intent.action.kind;
      if (kind === "sweep" || kind === "nonce_account") return;
      const replaced = intent.proto.supersedes;
      if (replaced && !(replaced.failure && failureAttested(intent, replaced.failure)))
        refuse(RefusalCode.FAILURE_NOT_ATTESTED, "a retry needs a watcher's attestation of the failure");
      const unapproved = !intent.approval || intent.approval.signature.length === 0;
      if (unapproved && kind === "payout" && options.unapprovedPayoutsToLinked) {
        // The policy knows the linked wallet; an approval-less payout must not look approved.
        intent.approval = undefined;
        return;
      }
      check(intent.approval, kind, approvalMessage(intent.proto), kind);
    },

    verifyDestination(request) {
      check(request.approval, "payout", destinationMessage(request), "payout destination");
    },
  };
}
