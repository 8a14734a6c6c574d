// Retries of refunds whose transaction failed on chain, against the signer as deployed (its own
// process, mTLS, role certificates): a compromised settlement holds its certificate, its refund
// approval key and the watcher's attestation of the transfer, but not the watcher's key. It cannot
// get a second refund of a transfer by claiming the first failed. docs/signer.md, "Retries".
import { readFileSync } from "node:fs";
import { buildSolanaTransfer, solanaNonceAccountAddress } from "@gateway/chain-tx";
import {
  approverKeyFromSeed,
  generateApproverKey,
  type IntentInput,
  type SignInput,
  type SupersessionInput,
  signApproval,
  signAttestation,
  signFailure,
} from "@gateway/signer-client";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type SignerProcess, startSignerProcess } from "./signer-process.js";

const MNEMONIC = "test test test test test test test test test test test junk";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const refundKey = generateApproverKey();
const watcherKey = generateApproverKey();
const key = (seed: string) => approverKeyFromSeed(Buffer.from(seed, "hex"));
const watcher = { keyId: "watcher-1", key: key(watcherKey.seed) };
const settlementAsWatcher = { keyId: "settlement-1", key: key(refundKey.seed) };

let signer: SignerProcess;
let sol: { vault: string; gas: string };
let n = 0;
const id = (p: string) => `${p}_retry_${process.pid}_${++n}`;
const someone = () => Keypair.generate().publicKey.toBase58();

beforeAll(async () => {
  signer = await startSignerProcess({
    SIGNER_SEED_MNEMONIC: MNEMONIC,
    SIGNER_TRUSTED_APPROVERS: JSON.stringify([
      { keyId: "settlement-1", approves: "refund", publicKey: refundKey.publicKey },
      { keyId: "watcher-1", approves: "transfer", publicKey: watcherKey.publicKey },
    ]),
    SIGNER_CAPS: JSON.stringify({ "solana:*": { perIntent: "1000000000", perDay: "30000000000" } }),
  });
  sol = (await signer.client.getServiceAddresses()).solana.live;
}, 90_000);
afterAll(async () => {
  await signer?.stop();
});

/** A transfer the watcher attested: refunds of it go to its sender, up to its amount. */
function transfer(amount = 3_000_000n) {
  const t = {
    chain: "solana" as const,
    mode: "live" as const,
    asset: USDC,
    transferId: id("solana:tx"),
    depositAddress: someone(),
    sender: someone(),
    amount,
  };
  const a = signAttestation(t, watcher);
  return {
    ...t,
    attestation: {
      keyId: a.key_id,
      signature: new Uint8Array(Buffer.from(a.signature, "base64")),
      transferId: t.transferId,
      depositAddress: t.depositAddress,
      sender: t.sender,
      amount,
    },
  };
}

/** Settlement's refund of the whole transfer, approved with its key, on a fresh durable nonce. */
function refund(t: ReturnType<typeof transfer>, supersedes?: SupersessionInput): SignInput {
  const bare: IntentInput = {
    intentId: id("refund"),
    chain: "solana",
    mode: "live",
    asset: USDC,
    amount: t.amount,
    kind: "refund",
    destination: t.sender,
    reference: "pay_retry",
    attestation: t.attestation,
    ...(supersedes && { supersedes }),
  };
  return {
    intent: {
      ...bare,
      approval: signApproval({ intent: bare, keyId: "settlement-1", privateKey: key(refundKey.seed) }),
    } as IntentInput,
    unsignedTransaction: buildSolanaTransfer({
      asset: USDC,
      source: sol.vault,
      destination: t.sender,
      gasWallet: sol.gas,
      amount: t.amount,
      decimals: 6,
      recentBlockhash: someone(),
      nonceAccount: solanaNonceAccountAddress(sol.gas, 0),
    }),
  };
}

async function sign(input: SignInput) {
  const [outcome] = await signer.client.signBatch([input]);
  if (!outcome) throw new Error("no answer");
  return outcome;
}

async function refusedCode(input: SignInput): Promise<string> {
  const outcome = await sign(input);
  if (outcome.ok) throw new Error(`${input.intent.intentId} was signed`);
  const line = readFileSync(signer.auditPath, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .reverse()
    .find((l) => l.intent.intentId === input.intent.intentId);
  expect(line).toMatchObject({ decision: "refused", code: outcome.refusal.code });
  return outcome.refusal.code;
}

const failure = (txid: string, by = watcher) => signFailure({ chain: "solana", mode: "live", txid }, by);

it("a compromised settlement cannot refund a transfer twice by claiming the first refund failed", async () => {
  const t = transfer();
  const first = refund(t);
  const signedFirst = await sign(first);
  if (!signedFirst.ok) throw new Error(signedFirst.refusal.reason);
  const txid = bs58.encode(signedFirst.signed.signatures[0]!.signature);
  const replaces = first.intent.intentId;
  // Its own new refund of the transfer: over the attested amount.
  expect(await refusedCode(refund(t))).toBe("OVER_ATTESTED");
  // A retry without evidence, with evidence made with its own key, or of another transaction.
  const none = { intentId: replaces, failure: { keyId: "watcher-1", signature: new Uint8Array(), txid } };
  expect(await refusedCode(refund(t, none))).toBe("FAILURE_NOT_ATTESTED");
  expect(
    await refusedCode(refund(t, { intentId: replaces, failure: failure(txid, settlementAsWatcher) })),
  ).toBe("FAILURE_NOT_ATTESTED");
  const other = await sign(refund(transfer()));
  if (!other.ok) throw new Error(other.refusal.reason);
  const otherTxid = bs58.encode(other.signed.signatures[0]!.signature);
  expect(await refusedCode(refund(t, { intentId: replaces, failure: failure(otherTxid) }))).toBe(
    "FAILURE_NOT_ATTESTED",
  );
  // The honest retry, with the watcher's attestation of the failed transaction: signed once.
  expect((await sign(refund(t, { intentId: replaces, failure: failure(txid) }))).ok).toBe(true);
  expect(await refusedCode(refund(t, { intentId: replaces, failure: failure(txid) }))).toBe(
    "SUPERSEDE_REFUSED",
  );
  expect(await refusedCode(refund(t))).toBe("OVER_ATTESTED");
});
