// Producing approvals: settlement signs refunds, the API signs payouts after the OTP
// check, each with its own ed25519 key whose public half the signer trusts
// (SIGNER_TRUSTED_APPROVERS).
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import {
  ApprovalSchema,
  type AttestedTransfer,
  approvalMessage,
  attestationMessage,
  destinationMessage,
  type FailedTransaction,
  failureMessage,
  MODE_TO_PROTO,
  type ModeName,
  RequestPayoutDestinationRequestSchema,
} from "@gateway/signer-proto";
import {
  type ApprovalInput,
  CHAIN_TO_PROTO,
  type ChainName,
  type IntentInput,
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

/**
 * The bytes an approver signs for this intent (the approval's key and signature are not covered;
 * a payout approval's expiry is).
 */
export function approvalPayload(intent: IntentInput, expiresAtMs?: bigint): Uint8Array {
  const proto = toProtoIntent(intent);
  if (expiresAtMs !== undefined) proto.approval = create(ApprovalSchema, { expiresAtMs });
  return approvalMessage(proto);
}

export function signApproval(options: {
  intent: IntentInput;
  keyId: string;
  privateKey: KeyObject;
  /** Payouts: Unix ms after which the signer refuses the approval. */
  expiresAtMs?: bigint;
}): ApprovalInput {
  const signature = sign(null, approvalPayload(options.intent, options.expiresAtMs), options.privateKey);
  return {
    keyId: options.keyId,
    signature: new Uint8Array(signature),
    ...(options.expiresAtMs !== undefined ? { expiresAtMs: options.expiresAtMs } : {}),
  };
}

/** A request to put an address on a merchant's payout allow-list. */
export interface PayoutDestinationInput {
  merchantId: string;
  chain: ChainName;
  mode: ModeName;
  address: string;
  /** The merchant's linked payout wallet: the destination of scheduled payouts. */
  linked: boolean;
}

/** The bytes the API signs, after the merchant's e-mailed code, to request a destination. */
export function destinationPayload(input: PayoutDestinationInput, expiresAtMs: bigint): Uint8Array {
  return destinationMessage(
    create(RequestPayoutDestinationRequestSchema, {
      merchantId: input.merchantId,
      chain: CHAIN_TO_PROTO[input.chain],
      mode: MODE_TO_PROTO[input.mode],
      address: input.address,
      linked: input.linked,
      approval: { expiresAtMs },
    }),
  );
}

export function signDestinationApproval(options: {
  destination: PayoutDestinationInput;
  keyId: string;
  privateKey: KeyObject;
  expiresAtMs: bigint;
}): Required<ApprovalInput> {
  const payload = destinationPayload(options.destination, options.expiresAtMs);
  return {
    keyId: options.keyId,
    signature: new Uint8Array(sign(null, payload, options.privateKey)),
    expiresAtMs: options.expiresAtMs,
  };
}

/**
 * The approval of payout `payoutId`: exactly the intent the chain payout will ask the signer to
 * sign (`payout:<id>`, the vault to `destination`, the net amount, the payout as reference, the
 * merchant), valid until `expiresAtMs`, in the JSON form payout records keep. The API signs it
 * after the OTP check. Scheduled payouts carry none: the signer sends those only to the
 * merchant's linked, allow-listed wallet.
 */
export function signPayoutApproval(
  p: {
    payoutId: string;
    /** Required by a signer running the payout policy (every production signer). */
    merchantId?: string;
    chain: ChainName;
    mode: ModeName;
    asset: string;
    netAmount: bigint;
    destination: string;
    /** Unix ms; required by a signer running the payout policy. */
    expiresAtMs?: bigint;
  },
  approver: { keyId: string; key: KeyObject },
): { key_id: string; signature: string; expires_at_ms?: string } {
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
      ...(p.merchantId !== undefined ? { merchantId: p.merchantId } : {}),
    },
    keyId: approver.keyId,
    privateKey: approver.key,
    ...(p.expiresAtMs !== undefined ? { expiresAtMs: p.expiresAtMs } : {}),
  });
  return {
    key_id: keyId,
    signature: Buffer.from(signature).toString("base64"),
    ...(p.expiresAtMs !== undefined ? { expires_at_ms: p.expiresAtMs.toString() } : {}),
  };
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

/**
 * A watcher's attestation key from its configuration, spread into the watcher's options; without
 * a seed the watcher attests nothing (and live refunds of what it reports are refused).
 */
export function watcherAttestor(config: {
  WATCHER_ATTESTATION_KEY_ID: string;
  WATCHER_ATTESTATION_SEED?: string | undefined;
}): { attestor?: { keyId: string; key: KeyObject } } {
  const seed = config.WATCHER_ATTESTATION_SEED;
  if (!seed) return {};
  return {
    attestor: {
      keyId: config.WATCHER_ATTESTATION_KEY_ID,
      key: approverKeyFromSeed(Buffer.from(seed, "hex")),
    },
  };
}

/**
 * A watcher's attestation that transaction `txid` was executed at finality with an error: the
 * evidence a retry of the refund or payout it carried needs (`IntentInput.supersedes`). Made only
 * after the chain showed that failure; the signer trusts the key for `approves: "transfer"` only.
 */
export function signFailure(
  failed: FailedTransaction,
  attestor: { keyId: string; key: KeyObject },
): { keyId: string; signature: Uint8Array; txid: string } {
  const signature = sign(null, failureMessage(failed), attestor.key);
  return { keyId: attestor.keyId, signature: new Uint8Array(signature), txid: failed.txid };
}
