// The sealed seed file: the BIP39 mnemonic encrypted with AES-256-GCM under a key
// stretched from a passphrase by scrypt (memory-hard: 128 MiB per attempt at the default
// cost). The header is authenticated too, so its cost parameters cannot be lowered.
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import { mnemonicToSeedSync, validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";

export class SeedError extends Error {
  override readonly name = "SeedError";
}

interface SealedHeader {
  format: "gateway-signer-sealed-seed";
  version: 1;
  kdf: "scrypt";
  N: number;
  r: number;
  p: number;
  salt: string;
  iv: string;
}

interface SealedFile extends SealedHeader {
  ciphertext: string;
  tag: string;
}

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

export const DEFAULT_SCRYPT_COST: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };
const MIN_N = 2 ** 14;

function deriveKey(passphrase: string, salt: Buffer, cost: ScryptCost): Buffer {
  return scryptSync(passphrase.normalize("NFKD"), salt, 32, {
    N: cost.N,
    r: cost.r,
    p: cost.p,
    maxmem: 256 * cost.N * cost.r + 16 * 1024 * 1024,
  });
}

function headerBytes(header: SealedHeader): Buffer {
  return Buffer.from(JSON.stringify(header));
}

export function normalizeMnemonic(mnemonic: string): string {
  const normalized = mnemonic.normalize("NFKD").trim().split(/\s+/).join(" ");
  if (!validateMnemonic(normalized, wordlist)) throw new SeedError("not a valid BIP39 English mnemonic");
  return normalized;
}

export function sealMnemonic(mnemonic: string, passphrase: string, cost = DEFAULT_SCRYPT_COST): string {
  if (passphrase.length < 12) throw new SeedError("passphrase must be at least 12 characters");
  const header: SealedHeader = {
    format: "gateway-signer-sealed-seed",
    version: 1,
    kdf: "scrypt",
    N: cost.N,
    r: cost.r,
    p: cost.p,
    salt: randomBytes(16).toString("base64"),
    iv: randomBytes(12).toString("base64"),
  };
  const key = deriveKey(passphrase, Buffer.from(header.salt, "base64"), cost);
  const cipher = createCipheriv("aes-256-gcm", key, Buffer.from(header.iv, "base64"));
  cipher.setAAD(headerBytes(header));
  const ciphertext = Buffer.concat([cipher.update(normalizeMnemonic(mnemonic), "utf8"), cipher.final()]);
  const file: SealedFile = {
    ...header,
    ciphertext: ciphertext.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

export function unsealMnemonic(contents: string, passphrase: string): string {
  let file: SealedFile;
  try {
    file = JSON.parse(contents) as SealedFile;
  } catch (error) {
    throw new SeedError("sealed seed file is not JSON", { cause: error });
  }
  if (file.format !== "gateway-signer-sealed-seed" || file.version !== 1 || file.kdf !== "scrypt") {
    throw new SeedError("unknown sealed seed file format");
  }
  if (!Number.isInteger(file.N) || file.N < MIN_N || file.r < 8 || file.p < 1) {
    throw new SeedError("sealed seed file has a KDF cost below the minimum");
  }
  const header: SealedHeader = {
    format: file.format,
    version: file.version,
    kdf: file.kdf,
    N: file.N,
    r: file.r,
    p: file.p,
    salt: file.salt,
    iv: file.iv,
  };
  const key = deriveKey(passphrase, Buffer.from(file.salt, "base64"), file);
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(file.iv, "base64"));
  decipher.setAAD(headerBytes(header));
  decipher.setAuthTag(Buffer.from(file.tag, "base64"));
  try {
    const plain = Buffer.concat([decipher.update(Buffer.from(file.ciphertext, "base64")), decipher.final()]);
    return normalizeMnemonic(plain.toString("utf8"));
  } catch (error) {
    throw new SeedError("cannot open the sealed seed: wrong passphrase or damaged file", { cause: error });
  }
}

/** The 64-byte BIP39 seed (no BIP39 passphrase: the sealing passphrase protects the file). */
export function mnemonicToSeed(mnemonic: string): Uint8Array {
  return mnemonicToSeedSync(normalizeMnemonic(mnemonic));
}
