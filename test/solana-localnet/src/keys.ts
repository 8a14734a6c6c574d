// Ed25519 keys for the network's own wallets (faucet, mint authority), signed with
// node:crypto: web3.js signs through noble at ~300 tx/s here, node:crypto at ~30,000.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  randomBytes,
  sign,
} from "node:crypto";
import { PublicKey, type Transaction } from "@solana/web3.js";

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface LocalKeypair {
  readonly publicKey: PublicKey;
  /** 64 bytes, seed then public key: the layout `Keypair.fromSecretKey` and the CLI files use. */
  readonly secretKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

export function keypairFromSeed(seed: Uint8Array): LocalKeypair {
  if (seed.length !== 32) throw new Error("an ed25519 seed is 32 bytes");
  const privateKey: KeyObject = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const jwk = createPublicKey(privateKey).export({ format: "jwk" });
  const publicBytes = Buffer.from(jwk.x ?? "", "base64url");
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(publicBytes, 32);
  return {
    publicKey: new PublicKey(publicBytes),
    secretKey,
    sign: (message) => new Uint8Array(sign(null, message, privateKey)),
  };
}

export function generateKeypair(): LocalKeypair {
  return keypairFromSeed(randomBytes(32));
}

/** Deterministic keys let a restarted network keep the same authority and faucet addresses. */
export function keypairFromLabel(label: string): LocalKeypair {
  return keypairFromSeed(createHash("sha256").update(`gateway-solana-localnet:${label}`).digest());
}

export function keypairFromSecretKey(secretKey: Uint8Array): LocalKeypair {
  return keypairFromSeed(secretKey.subarray(0, 32));
}

/** Signs a web3.js legacy transaction whose fee payer and blockhash are set. */
export function signTransaction(tx: Transaction, signers: readonly LocalKeypair[]): Uint8Array {
  const message = tx.serializeMessage();
  for (const signer of signers) tx.addSignature(signer.publicKey, Buffer.from(signer.sign(message)));
  return tx.serialize({ verifySignatures: false });
}
