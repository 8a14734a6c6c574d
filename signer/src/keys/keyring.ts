// Every key the signer holds, derived on demand from the one seed and cached.
// Layout (docs/signer.md): the branch separates live deposits, test deposits, vault
// and gas wallets; Solana uses m/44'/501'/<branch>'/<index>', Sui uses
// m/44'/784'/<branch>'/0'/<index>' (what Ed25519Keypair.deriveKeypair computes).
import { blake2b } from "@noble/hashes/blake2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { PublicKey } from "@solana/web3.js";
import { type Ed25519Key, ed25519FromSeed, ed25519Sign } from "./ed25519.js";
import { childNode, masterNode, type Slip10Node } from "./slip10.js";

export type ChainName = "solana" | "sui";
export type ModeName = "live" | "test";
export type KeyRole = "deposit" | "vault" | "gas";

export const BRANCHES: Record<KeyRole, Record<ModeName, number>> = {
  deposit: { live: 0, test: 1 },
  vault: { live: 2, test: 3 },
  gas: { live: 4, test: 5 },
};

const COIN_TYPES: Record<ChainName, number> = { solana: 501, sui: 784 };

export interface SigningKey {
  readonly chain: ChainName;
  readonly address: string;
  readonly publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

export interface Keyring {
  key(chain: ChainName, role: KeyRole, mode: ModeName, index?: number): SigningKey;
}

export function solanaAddress(publicKey: Uint8Array): string {
  return new PublicKey(publicKey).toBase58();
}

/** Sui address of an ed25519 key: BLAKE2b-256 over the scheme flag 0x00 and the key. */
export function suiAddress(publicKey: Uint8Array): string {
  const input = new Uint8Array(33);
  input.set(publicKey, 1);
  return `0x${bytesToHex(blake2b(input, { dkLen: 32 }))}`;
}

export interface KeyringOptions {
  seed: Uint8Array;
  /** Derived keys kept in memory; the oldest are dropped beyond this. */
  cacheSize?: number;
}

export function createKeyring({ seed, cacheSize = 200_000 }: KeyringOptions): Keyring {
  const master = masterNode(seed);
  // The parent of every index on a branch, so one derivation costs one HMAC.
  const parents = new Map<string, Slip10Node>();
  const cache = new Map<number, SigningKey>();

  function parentOf(chain: ChainName, branch: number): Slip10Node {
    const id = `${chain}/${branch}`;
    let node = parents.get(id);
    if (!node) {
      node = childNode(childNode(childNode(master, 44), COIN_TYPES[chain]), branch);
      if (chain === "sui") node = childNode(node, 0);
      parents.set(id, node);
    }
    return node;
  }

  function key(chain: ChainName, role: KeyRole, mode: ModeName, index = 0): SigningKey {
    const branch = BRANCHES[role][mode];
    // A number, not a string: no allocation per lookup (branch < 8, index < 2^31: exact in a double).
    const id = (COIN_TYPES[chain] * 8 + branch) * 2 ** 31 + index;
    const cached = cache.get(id);
    if (cached) return cached;
    const node = childNode(parentOf(chain, branch), index);
    const ed: Ed25519Key = ed25519FromSeed(node.key);
    const signingKey: SigningKey = {
      chain,
      publicKey: ed.publicKey,
      address: chain === "solana" ? solanaAddress(ed.publicKey) : suiAddress(ed.publicKey),
      sign: (message) => ed25519Sign(ed.privateKey, message),
    };
    if (cache.size >= cacheSize) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(id, signingKey);
    return signingKey;
  }

  return { key };
}
