import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A new endpoint signing secret: `whsec_` + 40 base62 characters (238 bits). */
export function generateEndpointSecret(): string {
  let out = "whsec_";
  for (const byte of randomBytes(40)) out += ALPHABET[byte % 62];
  return out;
}

/** WEBHOOK_SECRET_KEY (32 bytes, base64) as a key; anything else is a configuration error. */
export function parseSecretKey(base64: string): Buffer {
  const key = Buffer.from(base64, "base64");
  if (key.length !== 32) throw new Error("WEBHOOK_SECRET_KEY must be 32 bytes in base64");
  return key;
}

/**
 * AES-256-GCM with the endpoint id as additional data, so a sealed secret copied onto another
 * endpoint's row does not open. Layout: nonce || ciphertext || tag.
 */
export function sealSecret(key: Buffer, endpointId: string, secret: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(Buffer.from(endpointId, "utf8"));
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]);
}

/** Throws when the key is wrong or the bytes were altered (GCM authentication). */
export function openSecret(key: Buffer, endpointId: string, sealed: Buffer): string {
  if (sealed.length <= NONCE_BYTES + TAG_BYTES) throw new Error("sealed secret too short");
  const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, NONCE_BYTES));
  decipher.setAAD(Buffer.from(endpointId, "utf8"));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)),
    decipher.final(),
  ]).toString("utf8");
}
