import { createPrivateKey, createPublicKey } from "node:crypto";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Keypair } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { mnemonicToSeed, SeedError, sealMnemonic, unsealMnemonic } from "../sealed-seed.js";
import { type Ed25519Key, ed25519FromSeed, ed25519Sign } from "./ed25519.js";
import { createKeyring } from "./keyring.js";
import { childNode, masterNode, type Slip10Node } from "./slip10.js";

/** A whole path such as "m/44'/501'/0'/0'", for the published vectors (the keyring derives level by level). */
function derivePath(seed: Uint8Array, path: string): Slip10Node {
  const parts = path.split("/");
  if (parts[0] !== "m") throw new Error(`path must start with m: ${path}`);
  const indexes = parts.slice(1).map((part) => {
    const match = /^(\d+)'$/.exec(part);
    if (!match) throw new Error(`ed25519 paths are hardened only: ${path}`);
    return Number(match[1]);
  });
  return indexes.reduce(childNode, masterNode(seed));
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** The slower, format-neutral PKCS#8 path, to check the JWK import the signer uses against. */
function ed25519FromSeedPkcs8(seed: Uint8Array): Ed25519Key {
  const pkcs8 = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  const privateKey = createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" });
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  return { privateKey, publicKey: new Uint8Array(spki.subarray(12)) };
}
const MNEMONIC = "test test test test test test test test test test test junk";

describe("SLIP-0010 ed25519", () => {
  // https://github.com/satoshilabs/slips/blob/master/slip-0010.md, test vector 1 for ed25519
  const seed = Buffer.from("000102030405060708090a0b0c0d0e0f", "hex");
  const vector: [string, string, string, string][] = [
    [
      "m",
      "90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb",
      "2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7",
      "a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed",
    ],
    [
      "m/0'",
      "8b59aa11380b624e81507a27fedda59fea6d0b779a778918a2fd3590e16e9c69",
      "68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3",
      "8c8a13df77a28f3445213a0f432fde644acaa215fc72dcdf300d5efaa85d350c",
    ],
    [
      "m/0'/1'",
      "a320425f77d1b5c2505a6b1b27382b37368ee640e3557c315416801243552f14",
      "b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2",
      "1932a5270f335bed617d5b935c80aedb1a35bd9fc1e31acafd5372c30f5c1187",
    ],
    [
      "m/0'/1'/2'",
      "2e69929e00b5ab250f49c3fb1c12f252de4fed2c1db88387094a0f8c4c9ccd6c",
      "92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9",
      "ae98736566d30ed0e9d2f4486a64bc95740d89c7db33f52121f8ea8f76ff0fc1",
    ],
    [
      "m/0'/1'/2'/2'",
      "8f6d87f93d750e0efccda017d662a1b31a266e4a6f5993b15f5c1f07f74dd5cc",
      "30d1dc7e5fc04c31219ab25a27ae00b50f6fd66622f6e9c913253d6511d1e662",
      "8abae2d66361c879b900d204ad2cc4984fa2aa344dd7ddc46007329ac76c429c",
    ],
    [
      "m/0'/1'/2'/2'/1000000000'",
      "68789923a0cac2cd5a29172a475fe9e0fb14cd6adb5ad98a3fa70333e7afa230",
      "8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793",
      "3c24da049451555d51a7014a37337aa4e12d41e485abccfa46b47dfb2af54b7a",
    ],
  ];
  it.each(vector)("derives %s", (path, chainCode, privateKey, publicKey) => {
    const node = derivePath(seed, path);
    expect(hex(node.chainCode)).toBe(chainCode);
    expect(hex(node.key)).toBe(privateKey);
    expect(hex(ed25519FromSeed(node.key).publicKey)).toBe(publicKey);
  });

  it("imports keys through JWK exactly as through PKCS#8", () => {
    const message = new TextEncoder().encode("same key either way");
    for (const [path] of vector) {
      const { key } = derivePath(seed, path);
      const fast = ed25519FromSeed(key);
      const slow = ed25519FromSeedPkcs8(key);
      expect(hex(fast.publicKey)).toBe(hex(slow.publicKey));
      expect(hex(ed25519Sign(fast.privateKey, message))).toBe(hex(ed25519Sign(slow.privateKey, message)));
    }
  });

  it("refuses non-hardened levels", () => {
    expect(() => derivePath(seed, "m/0")).toThrow(/hardened/);
  });
});

describe("keyring", () => {
  const seed = mnemonicToSeed(MNEMONIC);
  const keyring = createKeyring({ seed });

  it("derives Solana keys that @solana/web3.js computes from the same SLIP-0010 seed", () => {
    for (const index of [0, 1, 7, 2 ** 31 - 1]) {
      const key = keyring.key("solana", "deposit", "live", index);
      const expected = Keypair.fromSeed(derivePath(seed, `m/44'/501'/0'/${index}'`).key);
      expect(key.address).toBe(expected.publicKey.toBase58());
    }
  });

  it("derives Sui keys equal to Ed25519Keypair.deriveKeypair", () => {
    for (const [role, mode, branch] of [
      ["deposit", "live", 0],
      ["deposit", "test", 1],
      ["vault", "live", 2],
      ["gas", "test", 5],
    ] as const) {
      for (const index of [0, 3]) {
        const key = keyring.key("sui", role, mode, index);
        const sdk = Ed25519Keypair.deriveKeypair(MNEMONIC, `m/44'/784'/${branch}'/0'/${index}'`);
        expect(key.address).toBe(sdk.getPublicKey().toSuiAddress());
      }
    }
  });

  it("keeps branches apart and signs with node:crypto like the SDK does", async () => {
    const live = keyring.key("solana", "deposit", "live", 5);
    const test = keyring.key("solana", "deposit", "test", 5);
    const vault = keyring.key("solana", "vault", "live");
    const gas = keyring.key("solana", "gas", "live");
    expect(new Set([live.address, test.address, vault.address, gas.address]).size).toBe(4);
    const message = new TextEncoder().encode("hello");
    const sdk = Ed25519Keypair.deriveKeypair(MNEMONIC, "m/44'/784'/0'/0'/9'");
    const ours = keyring.key("sui", "deposit", "live", 9);
    expect(hex(ours.sign(message))).toBe(hex(await sdk.sign(message)));
  });

  it("returns the cached key object on repeat", () => {
    expect(keyring.key("sui", "vault", "live")).toBe(keyring.key("sui", "vault", "live"));
  });
});

describe("sealed seed", () => {
  const cost = { N: 2 ** 14, r: 8, p: 1 };

  it("round-trips and never stores the mnemonic in the clear", () => {
    const sealed = sealMnemonic(MNEMONIC, "correct horse battery", cost);
    expect(sealed).not.toContain("junk");
    expect(unsealMnemonic(sealed, "correct horse battery")).toBe(MNEMONIC);
  });

  it("refuses a wrong passphrase", () => {
    const sealed = sealMnemonic(MNEMONIC, "correct horse battery", cost);
    expect(() => unsealMnemonic(sealed, "wrong horse battery!")).toThrow(SeedError);
  });

  it("refuses a header whose KDF cost was changed", () => {
    const file = JSON.parse(sealMnemonic(MNEMONIC, "correct horse battery", cost));
    file.N = 2 ** 15;
    expect(() => unsealMnemonic(JSON.stringify(file), "correct horse battery")).toThrow(SeedError);
    file.N = 2 ** 10;
    expect(() => unsealMnemonic(JSON.stringify(file), "correct horse battery")).toThrow(/minimum/);
  });

  it("refuses a phrase that is not a BIP39 mnemonic", () => {
    expect(() => sealMnemonic("not a mnemonic at all", "correct horse battery", cost)).toThrow(SeedError);
  });
});
