import { createHash, randomBytes } from "node:crypto";
import type { Mode } from "@gateway/domain";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const SECRET_LENGTH = 40;
export const KEY_PATTERN = /^gw_(test|live)_[0-9A-Za-z]{40}$/;

/** API keys are prefix + 40 base62 characters (238 bits); only sha256(key) is stored. */
export function generateApiKey(mode: Mode): string {
  const bytes = randomBytes(SECRET_LENGTH);
  let secret = "";
  for (const byte of bytes) secret += ALPHABET[byte % 62];
  return `gw_${mode}_${secret}`;
}

export function hashApiKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

/** What the dashboard shows of a key after its one-time reveal: enough to tell keys apart. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, 12)}…${key.slice(-4)}`;
}

export function modeOfKey(key: string): Mode | undefined {
  const match = KEY_PATTERN.exec(key);
  return match ? (match[1] as Mode) : undefined;
}

export interface GeneratedKeypair {
  testKey: string;
  liveKey: string;
  testHash: Buffer;
  liveHash: Buffer;
  testPrefix: string;
  livePrefix: string;
}

export function generateKeypair(): GeneratedKeypair {
  const testKey = generateApiKey("test");
  const liveKey = generateApiKey("live");
  return {
    testKey,
    liveKey,
    testHash: hashApiKey(testKey),
    liveHash: hashApiKey(liveKey),
    testPrefix: displayPrefix(testKey),
    livePrefix: displayPrefix(liveKey),
  };
}
