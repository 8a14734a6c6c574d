// Retries of refunds and payouts whose transaction failed on chain: accepted only with a watcher's
// attestation of that failure, for the very same effect, once per replaced intent, and then
// checked like any first signing; the state survives a restart (it is replayed from the log).
import { readFileSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import { buildSolanaTransfer, SOL_ASSET } from "@gateway/chain-tx";
import {
  approverKeyFromSeed,
  generateApproverKey,
  type IntentInput,
  type SupersessionInput,
  signApproval,
  signAttestation,
  signDestinationApproval,
  signFailure,
} from "@gateway/signer-client";
import {
  CancelPayoutDestinationRequestSchema,
  Chain,
  Mode,
  RefusalCode,
  RequestPayoutDestinationRequestSchema,
} from "@gateway/signer-proto";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { afterEach, describe, expect, it } from "vitest";
import {
  createTestSigner,
  durableNonce,
  nextIntentId,
  request,
  type TestSigner,
  testApprovers,
  wallets,
} from "../../test/fixtures.js";
import type { SignOutcome } from "../signer-core.js";
import { createPayoutPolicy } from "./payouts.js";
import { createRefundAttestationRule } from "./refunds.js";
import { createSupersessionRule } from "./supersession.js";

const clock = new Date("2026-03-01T10:00:00Z");
const signers: TestSigner[] = [];
afterEach(() => {
  for (const s of signers.splice(0)) s.close();
});

const someone = () => Keypair.generate().publicKey.toBase58();
const keyOf = (k: { seed: string }) => approverKeyFromSeed(Buffer.from(k.seed, "hex"));
const watcherSeed = generateApproverKey();
const watcher = { keyId: "watcher-1", key: keyOf(watcherSeed) };
const approvers = testApprovers();
approvers.trusted.push({
  keyId: "watcher-1",
  approves: "transfer" as never,
  publicKey: Buffer.from(watcherSeed.publicKey, "hex"),
});

function start(dir?: string, rules = true): TestSigner {
  const signer = createTestSigner({
    approvers,
    now: () => clock,
    ...(dir ? { dir } : {}),
    rules: rules
      ? [
          createSupersessionRule(),
          createRefundAttestationRule(approvers.trusted),
          createPayoutPolicy({
            destinationDelaySeconds: { live: 0, test: 0 },
            approvalMaxTtlSeconds: 900,
            limits: {
              perMerchant: { count: 20, amount: 10n ** 12n },
              total: { count: 100, amount: 10n ** 12n },
            },
          }),
        ]
      : [createRefundAttestationRule(approvers.trusted)],
  });
  signers.push(signer);
  return signer;
}

/** A transfer a watcher attested: what refunds of it may return, and to whom. */
function attestedTransfer(amount = 1_000_000n) {
  const transfer = {
    chain: "solana" as const,
    mode: "live" as const,
    asset: SOL_ASSET,
    transferId: nextIntentId("tx"),
    depositAddress: someone(),
    sender: someone(),
    amount,
  };
  const a = signAttestation(transfer, watcher);
  return {
    sender: transfer.sender,
    attestation: {
      keyId: a.key_id,
      signature: new Uint8Array(Buffer.from(a.signature, "base64")),
      transferId: transfer.transferId,
      depositAddress: transfer.depositAddress,
      sender: transfer.sender,
      amount,
    },
  };
}

type Transfer = ReturnType<typeof attestedTransfer>;

function sign(signer: TestSigner, intent: IntentInput & { destination: string }): SignOutcome {
  const w = wallets(signer.keyring, "solana");
  const tx = buildSolanaTransfer({
    asset: SOL_ASSET,
    source: w.vault,
    destination: intent.destination,
    gasWallet: w.gas,
    amount: intent.amount,
    ...durableNonce(signer.keyring),
  });
  return signer.core.decide(request(intent, tx));
}

function refund(
  signer: TestSigner,
  t: Transfer,
  o: { intentId?: string; amount?: bigint; supersedes?: SupersessionInput } = {},
): SignOutcome {
  const intent: IntentInput = {
    intentId: o.intentId ?? nextIntentId("refund"),
    chain: "solana",
    mode: "live",
    asset: SOL_ASSET,
    amount: o.amount ?? t.attestation.amount,
    kind: "refund",
    destination: t.sender,
    reference: "pay_retry",
    attestation: t.attestation,
    ...(o.supersedes && { supersedes: o.supersedes }),
  };
  const key = approvers.settlement;
  return sign(signer, {
    ...intent,
    approval: signApproval({ intent, keyId: key.keyId, privateKey: key.key }),
  });
}

function payout(
  signer: TestSigner,
  p: {
    destination: string;
    reference: string;
    amount?: bigint;
    supersedes?: SupersessionInput;
    approvedAsFirst?: boolean;
  },
): SignOutcome {
  const intent: IntentInput = {
    intentId: nextIntentId("payout"),
    chain: "solana",
    mode: "live",
    asset: SOL_ASSET,
    amount: p.amount ?? 2_000_000n,
    kind: "payout",
    destination: p.destination,
    reference: p.reference,
    merchantId: "mer_retry",
    ...(p.supersedes && { supersedes: p.supersedes }),
  };
  // The API's fresh approval of the retry names the intent it replaces.
  const { supersedes: _, ...asFirst } = intent;
  const approval = signApproval({
    intent: p.approvedAsFirst ? asFirst : intent,
    keyId: approvers.api.keyId,
    privateKey: approvers.api.key,
    expiresAtMs: BigInt(clock.getTime() + 300_000),
  });
  return sign(signer, { ...intent, approval });
}

/** The chain's id of a signed Solana transaction: its fee payer's signature, base58. */
function txidOf(outcome: SignOutcome): string {
  if (!outcome.ok) throw new Error(`refused: ${outcome.refusal.reason}`);
  return bs58.encode(outcome.response.signatures[0]!.signature);
}

function failed(intentId: string, txid: string, attestor = watcher): SupersessionInput {
  return { intentId, failure: signFailure({ chain: "solana", mode: "live", txid }, attestor) };
}

function refusedWith(outcome: SignOutcome, code: RefusalCode) {
  expect(
    outcome.ok,
    JSON.stringify(outcome, (_k, v) => (typeof v === "bigint" ? `${v}` : v)),
  ).toBe(false);
  if (!outcome.ok) expect(RefusalCode[outcome.refusal.code]).toBe(RefusalCode[code]);
}

describe("a refund whose transaction failed", () => {
  it("is retried once with the watcher's attestation, and the attested amount is refunded once in total", () => {
    const signer = start();
    const t = attestedTransfer();
    const first = refund(signer, t, { intentId: "refund:pay_1" });
    const txid = txidOf(first);
    refusedWith(refund(signer, t), RefusalCode.OVER_ATTESTED);

    const retry = refund(signer, t, {
      intentId: "refund:pay_1.retry1",
      supersedes: failed("refund:pay_1", txid),
    });
    expect(retry.ok).toBe(true);
    // The retry used the attested amount again: nothing more, and no second retry of the first.
    refusedWith(refund(signer, t, { amount: 1n }), RefusalCode.OVER_ATTESTED);
    refusedWith(
      refund(signer, t, { intentId: "refund:pay_1.retry2", supersedes: failed("refund:pay_1", txid) }),
      RefusalCode.SUPERSEDE_REFUSED,
    );
    // A repeat of the retry gets its bound transaction back.
    const again = refund(signer, t, {
      intentId: "refund:pay_1.retry1",
      supersedes: failed("refund:pay_1", txid),
    });
    expect(again.ok && retry.ok && Buffer.from(again.response.transaction)).toEqual(
      retry.ok && Buffer.from(retry.response.transaction),
    );
    // The retry failed too: it can be replaced in turn, with the attestation of its own transaction.
    const third = refund(signer, t, { supersedes: failed("refund:pay_1.retry1", txidOf(retry)) });
    expect(third.ok).toBe(true);
  });

  it("is refused without evidence, with forged evidence, or evidence of another transaction", () => {
    const signer = start();
    const t = attestedTransfer();
    const first = refund(signer, t, { intentId: nextIntentId("refund") });
    const txid = txidOf(first);
    const oldId = lastSignedId(signer);
    const other = txidOf(refund(signer, attestedTransfer()));
    const noEvidence = {
      intentId: oldId,
      failure: { keyId: "watcher-1", signature: new Uint8Array(), txid },
    };
    refusedWith(refund(signer, t, { supersedes: noEvidence }), RefusalCode.FAILURE_NOT_ATTESTED);
    // Settlement's key is trusted, but not to attest chain facts.
    const bySettlement = failed(oldId, txid, approvers.settlement);
    refusedWith(refund(signer, t, { supersedes: bySettlement }), RefusalCode.FAILURE_NOT_ATTESTED);
    const forger = { keyId: "watcher-1", key: keyOf(generateApproverKey()) };
    refusedWith(
      refund(signer, t, { supersedes: failed(oldId, txid, forger) }),
      RefusalCode.FAILURE_NOT_ATTESTED,
    );
    // A real attestation, of another transaction (or one re-labelled with this txid).
    refusedWith(refund(signer, t, { supersedes: failed(oldId, other) }), RefusalCode.FAILURE_NOT_ATTESTED);
    const relabelled = failed(oldId, other);
    relabelled.failure.txid = txid;
    refusedWith(refund(signer, t, { supersedes: relabelled }), RefusalCode.FAILURE_NOT_ATTESTED);
    // An intent never signed has no transaction that failed.
    refusedWith(
      refund(signer, t, { supersedes: failed("refund:never", txid) }),
      RefusalCode.SUPERSEDE_REFUSED,
    );
    // Another amount is another effect, even when the transfer would cover it.
    refusedWith(
      refund(signer, t, { amount: 999_999n, supersedes: failed(oldId, txid) }),
      RefusalCode.SUPERSEDE_REFUSED,
    );
    // Every refusal left the attested amount used: still nothing more to refund.
    refusedWith(refund(signer, t, { amount: 1n }), RefusalCode.OVER_ATTESTED);
    expect(refund(signer, t, { supersedes: failed(oldId, txid) }).ok).toBe(true);
  });

  it("keeps its retries across a restart: the log replays the release and the replacement", () => {
    const signer = start();
    const t = attestedTransfer();
    const txid = txidOf(refund(signer, t, { intentId: "refund:pay_r" }));
    const retry = { intentId: "refund:pay_r.retry1", supersedes: failed("refund:pay_r", txid) };
    const first = refund(signer, t, retry);
    expect(first.ok).toBe(true);
    signer.close();
    const again = start(signer.dir);
    // A repeat of the retry after the restart gets its bound transaction back.
    const repeat = refund(again, t, retry);
    expect(repeat.ok && first.ok && Buffer.from(repeat.response.transaction)).toEqual(
      first.ok && Buffer.from(first.response.transaction),
    );
    refusedWith(refund(again, t, { amount: 1n }), RefusalCode.OVER_ATTESTED);
    refusedWith(
      refund(again, t, { intentId: "refund:pay_r.retry2", supersedes: failed("refund:pay_r", txid) }),
      RefusalCode.SUPERSEDE_REFUSED,
    );
  });

  it("is refused by a signer that runs no supersession rule", () => {
    const signer = start(undefined, false);
    const t = attestedTransfer();
    const txid = txidOf(refund(signer, t, { intentId: "refund:pay_n" }));
    refusedWith(
      refund(signer, t, { supersedes: failed("refund:pay_n", txid) }),
      RefusalCode.SUPERSEDE_REFUSED,
    );
  });
});

describe("a payout whose transaction failed", () => {
  it("is retried with a fresh approval naming the payout it replaces, once", () => {
    const signer = start();
    const destination = allowListed(signer);
    const first = payout(signer, { destination, reference: "po_1" });
    const oldId = lastSignedId(signer);
    const txid = txidOf(first);
    refusedWith(payout(signer, { destination, reference: "po_1" }), RefusalCode.APPROVAL_REUSED);
    // The approval of a first attempt does not serve a retry.
    refusedWith(
      payout(signer, {
        destination,
        reference: "po_1",
        supersedes: failed(oldId, txid),
        approvedAsFirst: true,
      }),
      RefusalCode.APPROVAL_INVALID,
    );
    refusedWith(
      payout(signer, {
        destination: allowListed(signer),
        reference: "po_1",
        supersedes: failed(oldId, txid),
      }),
      RefusalCode.SUPERSEDE_REFUSED,
    );
    refusedWith(
      payout(signer, { destination, reference: "po_1", amount: 3_000_000n, supersedes: failed(oldId, txid) }),
      RefusalCode.SUPERSEDE_REFUSED,
    );
    expect(payout(signer, { destination, reference: "po_1", supersedes: failed(oldId, txid) }).ok).toBe(true);
    refusedWith(
      payout(signer, { destination, reference: "po_1", supersedes: failed(oldId, txid) }),
      RefusalCode.SUPERSEDE_REFUSED,
    );
    refusedWith(payout(signer, { destination, reference: "po_1" }), RefusalCode.APPROVAL_REUSED);
  });

  it("still goes through the allow-list", () => {
    const signer = start();
    const destination = allowListed(signer);
    const txid = txidOf(payout(signer, { destination, reference: "po_2" }));
    const oldId = lastSignedId(signer);
    signer.core.cancelPayoutDestination(
      create(CancelPayoutDestinationRequestSchema, {
        merchantId: "mer_retry",
        chain: Chain.SOLANA,
        mode: Mode.LIVE,
        address: destination,
      }),
    );
    refusedWith(
      payout(signer, { destination, reference: "po_2", supersedes: failed(oldId, txid) }),
      RefusalCode.DESTINATION_NOT_ALLOWED,
    );
  });
});

describe("the supersession rule's state", () => {
  it("is a snapshot that restores into a fresh rule", () => {
    const rule = createSupersessionRule();
    rule.apply?.({ replaces: "refund:a", by: "refund:a.retry1", txid: "x" }, clock);
    const fresh = createSupersessionRule();
    fresh.restore(JSON.parse(JSON.stringify(rule.snapshot())));
    expect(fresh.snapshot()).toEqual([["refund:a", "refund:a.retry1"]]);
  });
});

/** An address on mer_retry's allow-list, in effect at once (no live delay in these tests). */
function allowListed(signer: TestSigner): string {
  const address = someone();
  const approval = signDestinationApproval({
    destination: { merchantId: "mer_retry", chain: "solana", mode: "live", address, linked: false },
    keyId: approvers.api.keyId,
    privateKey: approvers.api.key,
    expiresAtMs: BigInt(clock.getTime() + 300_000),
  });
  const outcome = signer.core.requestPayoutDestination(
    create(RequestPayoutDestinationRequestSchema, {
      merchantId: "mer_retry",
      chain: Chain.SOLANA,
      mode: Mode.LIVE,
      address,
      linked: false,
      approval,
    }),
  );
  expect(outcome.ok).toBe(true);
  return address;
}

/** The intent id of the latest signed entry of the audit log. */
function lastSignedId(signer: TestSigner): string {
  const lines = readFileSync(signer.auditPath, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  return lines.filter((l) => l.decision === "signed").at(-1).intent.intentId;
}
