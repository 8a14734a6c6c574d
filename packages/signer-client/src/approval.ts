// Producing approvals: settlement signs refunds, the API signs payouts after the OTP
// check, each with its own ed25519 key whose public half the signer trusts
// (SIGNER_TRUSTED_APPROVERS).
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { type AttestedTransfer, approvalMessage, attestationMessage } from "@gateway/signer-proto";
import {
  type ApprovalInput,
  type ChainName,
  type IntentInput,
  type ModeName,
  toProtoIntent,
} from "./intent.js";

const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** An approver's private key from its 32-byte seed. */
export function approverKeyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new Error("approver key seed must be 32 bytes");
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** The 32-byte public key, hex: the value to list in SIGNER_TRUSTED_APPROVERS. */
export function approverPublicKeyHex(privateKey: KeyObject): string {
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  return spki.subarray(spki.length - 32).toString("hex");
}

/** A fresh approver key: keep `seed` secret (hex), give `publicKey` to the signer. */
export function generateApproverKey(): { seed: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync("ed25519");
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
  return {
    seed: pkcs8.subarray(pkcs8.length - 32).toString("hex"),
    publicKey: approverPublicKeyHex(privateKey),
  };
}

/** The bytes an approver signs for this intent (the approval field itself is not covered). */
export function approvalPayload(intent: IntentInput): Uint8Array {
  return approvalMessage(toProtoIntent(intent));
}

export function signApproval(options: {
  intent: IntentInput;
  keyId: string;
  privateKey: KeyObject;
}): ApprovalInput {
  const signature = sign(null, approvalPayload(options.intent), options.privateKey);
  return { keyId: options.keyId, signature: new Uint8Array(signature) };
}

/**
 * The approval of payout `payoutId`: exactly the intent the chain payout will ask the signer to
 * sign (`payout:<id>`, the vault to `destination`, the net amount, the payout as reference), in
 * the JSON form payout records keep. The API signs it after the OTP check; settlement signs the
 * daily scheduled ones.
 */
export function signPayoutApproval(
  p: {
    payoutId: string;
    chain: ChainName;
    mode: ModeName;
    asset: string;
    netAmount: bigint;
    destination: string;
  },
  approver: { keyId: string; key: KeyObject },
): { key_id: string; signature: string } {
  const { keyId, signature } = signApproval({
    intent: {
      kind: "payout",
      intentId: `payout:${p.payoutId}`,
      chain: p.chain,
      mode: p.mode,
      asset: p.asset,
      amount: p.netAmount,
      destination: p.destination,
      reference: p.payoutId,
    },
    keyId: approver.keyId,
    privateKey: approver.key,
  });
  return { key_id: keyId, signature: Buffer.from(signature).toString("base64") };
}

/**
 * A watcher's attestation of a final transfer (keyId and base64 signature), carried with the
 * deposit report to the refund. The signer trusts the key for `approves: "transfer"` only.
 */
export function signAttestation(
  transfer: AttestedTransfer,
  attestor: { keyId: string; key: KeyObject },
): { key_id: string; signature: string } {
  return {
    key_id: attestor.keyId,
    signature: sign(null, attestationMessage(transfer), attestor.key).toString("base64"),
  };
}
