import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * Ids carry their type (`evt_`, `whk_`, `po_`, ...) so a misplaced id is obvious in logs and
 * errors. 22 base62 characters hold 131 random bits.
 */
export function newId(prefix: string, length = 22): string {
  return idFromBytes(prefix, pooledRandomBytes(length));
}

/**
 * Random bytes drawn from a pool filled 4 kB at a time, as Node's own `randomUUID` does: one
 * `randomBytes` call per id was a visible share of the API's CPU per payment. Each byte is
 * handed out once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;
function pooledRandomBytes(length: number): Uint8Array {
  if (length > POOL_BYTES) return randomBytes(length);
  if (used + length > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  used += length;
  return pool.subarray(used - length, used);
}

/** An id of the same form made from given bytes (a digest, for an id that must repeat). */
export function idFromBytes(prefix: string, bytes: Uint8Array): string {
  let out = `${prefix}_`;
  for (const byte of bytes) out += ALPHABET[byte % 62];
  return out;
}
