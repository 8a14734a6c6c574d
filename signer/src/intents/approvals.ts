// Refunds need an approval from settlement and payouts one from the API (made after the
// OTP check): an ed25519 signature over the intent's canonical encoding by a trusted key.
// Each key approves one kind only, so a leaked settlement key cannot authorise payouts.

import type { KeyObject } from "node:crypto";
import {
  approvalMessage,
  destinationMessage,
  RefusalCode,
  type RequestPayoutDestinationRequest,
} from "@gateway/signer-proto";
import { ed25519PublicKeyObject, ed25519Verify } from "../keys/ed25519.js";
import { refuse } from "../refusal.js";
import type { SignerIntent } from "./intent.js";

export interface TrustedApprover {
  keyId: string;
  /** Which intents this key may approve; "transfer": a watcher's key that attests transfers. */
  approves: "refund" | "payout" | "transfer";
  /** Raw 32-byte ed25519 public key. */
  publicKey: Uint8Array;
}

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
  const keys = new Map<string, { approves: TrustedApprover["approves"]; key: KeyObject }>();
  for (const approver of approvers) {
    if (keys.has(approver.keyId)) throw new Error(`approver key id ${approver.keyId} is listed twice`);
    keys.set(approver.keyId, {
      approves: approver.approves,
      key: ed25519PublicKeyObject(approver.publicKey),
    });
  }
  return {
    verify(intent) {
      const kind = intent.action.kind;
      if (kind === "sweep" || kind === "nonce_account") return;
      const unapproved = !intent.approval || intent.approval.signature.length === 0;
      if (unapproved && kind === "payout" && options.unapprovedPayoutsToLinked) {
        // The policy knows the linked wallet; an approval-less payout must not look approved.
        intent.approval = undefined;
        return;
      }
      if (!intent.approval || intent.approval.signature.length === 0)
        refuse(RefusalCode.APPROVAL_MISSING, `a ${kind} needs an approval`);
      const trusted = keys.get(intent.approval.keyId);
      if (!trusted)
        refuse(RefusalCode.APPROVAL_INVALID, `approval key ${intent.approval.keyId} is not trusted`);
      if (trusted.approves !== kind)
        refuse(RefusalCode.APPROVAL_INVALID, `key ${intent.approval.keyId} may not approve a ${kind}`);
      if (!ed25519Verify(trusted.key, approvalMessage(intent.proto), intent.approval.signature))
        refuse(RefusalCode.APPROVAL_INVALID, "the approval signature does not verify");
    },

    verifyDestination(request) {
      const approval = request.approval;
      if (!approval || approval.signature.length === 0)
        refuse(RefusalCode.APPROVAL_MISSING, "a payout destination needs an approval");
      const trusted = keys.get(approval.keyId);
      if (!trusted) refuse(RefusalCode.APPROVAL_INVALID, `approval key ${approval.keyId} is not trusted`);
      if (trusted.approves !== "payout")
        refuse(RefusalCode.APPROVAL_INVALID, `key ${approval.keyId} may not approve payout destinations`);
      if (!ed25519Verify(trusted.key, destinationMessage(request), approval.signature))
        refuse(RefusalCode.APPROVAL_INVALID, "the approval signature does not verify");
    },
  };
}
