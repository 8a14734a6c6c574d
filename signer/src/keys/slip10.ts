// SLIP-0010 for ed25519: hardened-only child derivation by HMAC-SHA512 (node:crypto's, which the
// deposit flow's rate of derivations needs).
import { createHmac } from "node:crypto";

export interface Slip10Node {
  /** The 32-byte ed25519 private key seed at this node. */
  readonly key: Buffer;
  readonly chainCode: Buffer;
}

export const HARDENED_OFFSET = 0x80000000;

export class DerivationError extends Error {
  override readonly name = "DerivationError";
}

function split(digest: Buffer): Slip10Node {
  return { key: digest.subarray(0, 32), chainCode: digest.subarray(32) };
}

export function masterNode(seed: Uint8Array): Slip10Node {
  return split(createHmac("sha512", "ed25519 seed").update(seed).digest());
}

/** `index` is the unhardened number; ed25519 in SLIP-0010 only has hardened children. */
export function childNode(parent: Slip10Node, index: number): Slip10Node {
  if (!Number.isInteger(index) || index < 0 || index >= HARDENED_OFFSET) {
    throw new DerivationError(`child index out of range: ${index}`);
  }
  const data = Buffer.alloc(37);
  parent.key.copy(data, 1);
  data.writeUInt32BE(index + HARDENED_OFFSET, 33);
  return split(createHmac("sha512", parent.chainCode).update(data).digest());
}
