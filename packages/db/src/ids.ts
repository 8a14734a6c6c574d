import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * Ids carry their type (`evt_`, `whk_`, `po_`, ...) so a misplaced id is obvious in logs and
 * errors. 22 base62 characters hold 131 random bits.
 */
export function newId(prefix: string, length = 22): string {
  return idFromBytes(prefix, randomBytes(length));
}

/** An id of the same form made from given bytes (a digest, for an id that must repeat). */
export function idFromBytes(prefix: string, bytes: Uint8Array): string {
  let out = `${prefix}_`;
  for (const byte of bytes) out += ALPHABET[byte % 62];
  return out;
}
