// Every key the signer holds, derived on demand from the one seed and cached.
// Layout (docs/signer.md): the branch separates live deposits, test deposits, vault
// and gas wallets; each chain's module gives the rest of the path (chains/<chain>.ts):
// m/44'/<coin type>'/<branch>'/<the chain's levels>'/<index>'.
import type { ModeName } from "@gateway/signer-proto";
import { signerChain } from "../chains/index.js";
import type { SigningKey } from "../chains/signer-chain.js";
import type { ChainName } from "../vocabulary.js";
import { type Ed25519Key, ed25519FromSeed, ed25519Sign } from "./ed25519.js";
import { childNode, masterNode, type Slip10Node } from "./slip10.js";

export type KeyRole = "deposit" | "vault" | "gas";

export const BRANCHES: Record<KeyRole, Record<ModeName, number>> = {
  deposit: { live: 0, test: 1 },
  vault: { live: 2, test: 3 },
  gas: { live: 4, test: 5 },
};

export interface Keyring {
  key(chain: ChainName, role: KeyRole, mode: ModeName, index?: number): SigningKey;
}

export interface KeyringOptions {
  seed: Uint8Array;
  /** Derived keys kept in memory; the oldest are dropped beyond this. */
  cacheSize?: number;
}

/**
 * Enough for minutes of deposits between the address and its sweep, and no more: each key kept
 * holds a KeyObject. A key evicted before its sweep is derived again, one HMAC from its parent.
 */
const DEFAULT_CACHE_SIZE = 10_000;

export function createKeyring({ seed, cacheSize = DEFAULT_CACHE_SIZE }: KeyringOptions): Keyring {
  const master = masterNode(seed);
  // The parent of every index on a branch, so one derivation costs one HMAC.
  const parents = new Map<string, Slip10Node>();
  const cache = new Map<number, SigningKey>();

  function parentOf(chain: ChainName, branch: number): Slip10Node {
    const id = `${chain}/${branch}`;
    let node = parents.get(id);
    if (!node) {
      const { coinType, path } = signerChain(chain);
      node = path.reduce(childNode, childNode(childNode(childNode(master, 44), coinType), branch));
      parents.set(id, node);
    }
    return node;
  }

  function key(chain: ChainName, role: KeyRole, mode: ModeName, index = 0): SigningKey {
    const branch = BRANCHES[role][mode];
    const { coinType, address } = signerChain(chain);
    // A number, not a string: no allocation per lookup (branch < 8, index < 2^31: exact in a double).
    const id = (coinType * 8 + branch) * 2 ** 31 + index;
    const cached = cache.get(id);
    if (cached) return cached;
    const node = childNode(parentOf(chain, branch), index);
    const ed: Ed25519Key = ed25519FromSeed(node.key);
    const signingKey: SigningKey = {
      chain,
      publicKey: ed.publicKey,
      address: address(ed.publicKey),
      sign: (message) => ed25519Sign(ed.privateKey, message),
    };
    if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
    cache.set(id, signingKey);
    return signingKey;
  }

  return { key };
}
