import { readFileSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import { buildSolanaTransfer, SOL_ASSET } from "@gateway/chain-tx";
import {
  type IntentInput,
  type PayoutDestinationInput,
  signApproval,
  signDestinationApproval,
  toProtoIntent,
} from "@gateway/signer-client";
import {
  CancelPayoutDestinationRequestSchema,
  Chain,
  MODE_TO_PROTO,
  Mode,
  RefusalCode,
  RequestPayoutDestinationRequestSchema,
  SignRequestSchema,
} from "@gateway/signer-proto";
import { Keypair } from "@solana/web3.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  createTestSigner,
  durableNonce,
  nextIntentId,
  type TestSigner,
  wallets,
} from "../../test/fixtures.js";
import type { SignOutcome } from "../signer-core.js";
import { createPayoutPolicy, type PayoutPolicyOptions } from "./payouts.js";

const HOUR = 3_600_000;
const OPTIONS: PayoutPolicyOptions = {
  destinationDelaySeconds: { live: 86_400, test: 0 },
  approvalMaxTtlSeconds: 900,
  limits: {
    perMerchant: { count: 3, amount: 3_000_000n },
    total: { count: 5, amount: 100_000_000n },
  },
};

let clock = new Date("2026-03-01T10:00:00Z");
const signers: TestSigner[] = [];
afterEach(() => {
  for (const s of signers.splice(0)) s.close();
  clock = new Date("2026-03-01T10:00:00Z");
});

function start(
  options: Partial<PayoutPolicyOptions> = {},
  dir?: string,
  approvers?: TestSigner["approvers"],
) {
  const signer = createTestSigner({
    now: () => clock,
    rules: [createPayoutPolicy({ ...OPTIONS, ...options })],
    ...(dir ? { dir } : {}),
    ...(approvers ? { approvers } : {}),
  });
  signers.push(signer);
  return signer;
}

const addr = () => Keypair.generate().publicKey.toBase58();
const later = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};

function requestDestination(
  signer: TestSigner,
  d: PayoutDestinationInput,
  options: {
    expiresInMs?: number;
    key?: "api" | "settlement";
    approval?: ReturnType<typeof signDestinationApproval>;
  } = {},
) {
  const key = signer.approvers[options.key ?? "api"];
  const approval =
    options.approval ??
    signDestinationApproval({
      destination: d,
      keyId: key.keyId,
      privateKey: key.key,
      expiresAtMs: BigInt(clock.getTime() + (options.expiresInMs ?? 5 * 60_000)),
    });
  const outcome = signer.core.requestPayoutDestination(
    create(RequestPayoutDestinationRequestSchema, {
      merchantId: d.merchantId,
      chain: d.chain === "solana" ? Chain.SOLANA : Chain.SUI,
      mode: MODE_TO_PROTO[d.mode],
      address: d.address,
      linked: d.linked,
      approval,
    }),
  );
  return { outcome, approval };
}

function payout(
  signer: TestSigner,
  p: {
    merchantId: string;
    destination: string;
    amount?: bigint;
    reference?: string;
    intentId?: string;
    approved?: boolean;
    expiresInMs?: number;
    mode?: "live" | "test";
  },
): SignOutcome {
  const mode = p.mode ?? "live";
  const w = wallets(signer.keyring, "solana", mode);
  const amount = p.amount ?? 1_000_000n;
  const intent: IntentInput = {
    intentId: p.intentId ?? nextIntentId("payout"),
    chain: "solana",
    mode,
    asset: SOL_ASSET,
    amount,
    kind: "payout",
    destination: p.destination,
    reference: p.reference ?? nextIntentId("po"),
    merchantId: p.merchantId,
  };
  const approved =
    p.approved === false
      ? intent
      : {
          ...intent,
          approval: signApproval({
            intent,
            keyId: signer.approvers.api.keyId,
            privateKey: signer.approvers.api.key,
            expiresAtMs: BigInt(clock.getTime() + (p.expiresInMs ?? 5 * 60_000)),
          }),
        };
  const tx = buildSolanaTransfer({
    asset: SOL_ASSET,
    source: w.vault,
    destination: p.destination,
    gasWallet: w.gas,
    amount,
    ...durableNonce(signer.keyring, mode),
  });
  return signer.core.decide(
    create(SignRequestSchema, { intent: toProtoIntent(approved), unsignedTransaction: tx }),
  );
}

function refusedWith(
  outcome: SignOutcome | { ok: boolean; refusal?: { code: RefusalCode } },
  code: RefusalCode,
) {
  expect(
    outcome.ok,
    JSON.stringify(outcome, (_k, v) => (typeof v === "bigint" ? String(v) : v)),
  ).toBe(false);
  if (!outcome.ok) expect(RefusalCode[outcome.refusal!.code]).toBe(RefusalCode[code]);
}

function auditLines(signer: TestSigner): Record<string, unknown>[] {
  return readFileSync(signer.auditPath, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/** An allow-listed destination, in effect (live delay passed). */
function allowed(signer: TestSigner, merchantId: string, linked = false): string {
  const address = addr();
  expect(
    requestDestination(signer, { merchantId, chain: "solana", mode: "live", address, linked }).outcome.ok,
  ).toBe(true);
  later(24 * HOUR);
  return address;
}

describe("payout destinations", () => {
  it("takes effect only after the delay, and is audited", () => {
    const signer = start();
    const address = addr();
    const { outcome } = requestDestination(signer, {
      merchantId: "mer_1",
      chain: "solana",
      mode: "live",
      address,
      linked: true,
    });
    expect(outcome.ok && Number(outcome.destination.effectiveAtMs - outcome.destination.requestedAtMs)).toBe(
      24 * HOUR,
    );
    refusedWith(
      payout(signer, { merchantId: "mer_1", destination: address }),
      RefusalCode.DESTINATION_NOT_ALLOWED,
    );
    later(24 * HOUR - 1);
    refusedWith(
      payout(signer, { merchantId: "mer_1", destination: address }),
      RefusalCode.DESTINATION_NOT_ALLOWED,
    );
    later(1);
    expect(payout(signer, { merchantId: "mer_1", destination: address }).ok).toBe(true);
    const requested = auditLines(signer).find((l) => l.decision === "payout_destination_requested");
    expect(requested).toMatchObject({
      intent: { rpc: "RequestPayoutDestination", merchantId: "mer_1", address, linked: true },
      destination: { effectiveAt: expect.any(Number) },
    });
  });

  it("has no delay in test mode by default", () => {
    const signer = start();
    const address = addr();
    requestDestination(signer, {
      merchantId: "mer_t",
      chain: "solana",
      mode: "test",
      address,
      linked: false,
    });
    expect(payout(signer, { merchantId: "mer_t", destination: address, mode: "test" }).ok).toBe(true);
    // A test-mode entry is not a live one.
    refusedWith(
      payout(signer, { merchantId: "mer_t", destination: address }),
      RefusalCode.DESTINATION_NOT_ALLOWED,
    );
  });

  it("refuses an address of another merchant, and one not on the list", () => {
    const signer = start();
    const address = allowed(signer, "mer_a");
    refusedWith(
      payout(signer, { merchantId: "mer_b", destination: address }),
      RefusalCode.DESTINATION_NOT_ALLOWED,
    );
    refusedWith(
      payout(signer, { merchantId: "mer_a", destination: addr() }),
      RefusalCode.DESTINATION_NOT_ALLOWED,
    );
    refusedWith(payout(signer, { merchantId: "", destination: address }), RefusalCode.INVALID_INTENT);
  });

  it("refuses a cancelled destination, and asking again restarts the delay", () => {
    const signer = start();
    const address = allowed(signer, "mer_c");
    const cancel = signer.core.cancelPayoutDestination(
      create(CancelPayoutDestinationRequestSchema, {
        merchantId: "mer_c",
        chain: Chain.SOLANA,
        mode: Mode.LIVE,
        address,
      }),
    );
    expect(cancel.ok && cancel.destination.cancelled).toBe(true);
    refusedWith(
      payout(signer, { merchantId: "mer_c", destination: address }),
      RefusalCode.DESTINATION_NOT_ALLOWED,
    );
    requestDestination(signer, {
      merchantId: "mer_c",
      chain: "solana",
      mode: "live",
      address,
      linked: false,
    });
    refusedWith(
      payout(signer, { merchantId: "mer_c", destination: address }),
      RefusalCode.DESTINATION_NOT_ALLOWED,
    );
    later(24 * HOUR);
    expect(payout(signer, { merchantId: "mer_c", destination: address }).ok).toBe(true);
    expect(auditLines(signer).some((l) => l.decision === "payout_destination_cancelled")).toBe(true);
  });

  it("keeps a live entry's time of effect when it is asked for again", () => {
    const signer = start();
    const address = addr();
    const d = {
      merchantId: "mer_k",
      chain: "solana" as const,
      mode: "live" as const,
      address,
      linked: false,
    };
    const first = requestDestination(signer, d).outcome;
    later(HOUR);
    const again = requestDestination(signer, { ...d, linked: true }).outcome;
    expect(first.ok && again.ok && again.destination.effectiveAtMs).toBe(
      first.ok && first.destination.effectiveAtMs,
    );
    expect(again.ok && again.destination.linked).toBe(true);
  });

  it("refuses destination approvals that are missing, expired, reused or from a refund key", () => {
    const signer = start();
    const d = {
      merchantId: "mer_d",
      chain: "solana" as const,
      mode: "live" as const,
      address: addr(),
      linked: true,
    };
    refusedWith(requestDestination(signer, d, { expiresInMs: -1 }).outcome, RefusalCode.APPROVAL_EXPIRED);
    refusedWith(
      requestDestination(signer, d, { expiresInMs: 3_600_000 }).outcome,
      RefusalCode.APPROVAL_EXPIRED,
    );
    refusedWith(requestDestination(signer, d, { key: "settlement" }).outcome, RefusalCode.APPROVAL_INVALID);
    const { outcome, approval } = requestDestination(signer, d);
    expect(outcome.ok).toBe(true);
    refusedWith(requestDestination(signer, d, { approval }).outcome, RefusalCode.APPROVAL_REUSED);
    refusedWith(
      requestDestination(signer, { ...d, address: addr() }, { approval }).outcome,
      RefusalCode.APPROVAL_INVALID,
    );
    const refusals = auditLines(signer).filter(
      (l) => l.decision === "refused" && (l.intent as { rpc?: string }).rpc === "RequestPayoutDestination",
    );
    expect(refusals.map((l) => l.code)).toEqual([
      "APPROVAL_EXPIRED",
      "APPROVAL_EXPIRED",
      "APPROVAL_INVALID",
      "APPROVAL_REUSED",
      "APPROVAL_INVALID",
    ]);
  });
});

describe("payout approvals", () => {
  it("refuses an expired approval, one without expiry and one valid for too long", () => {
    const signer = start();
    const destination = allowed(signer, "mer_e");
    refusedWith(
      payout(signer, { merchantId: "mer_e", destination, expiresInMs: -1 }),
      RefusalCode.APPROVAL_EXPIRED,
    );
    refusedWith(
      payout(signer, { merchantId: "mer_e", destination, expiresInMs: 901_000 }),
      RefusalCode.APPROVAL_EXPIRED,
    );
    expect(payout(signer, { merchantId: "mer_e", destination, expiresInMs: 899_000 }).ok).toBe(true);
  });

  it("binds an approval to one payout: its reference under another intent id is refused", () => {
    const signer = start();
    const destination = allowed(signer, "mer_r");
    const intentId = nextIntentId("payout");
    expect(payout(signer, { merchantId: "mer_r", destination, reference: "po_1", intentId }).ok).toBe(true);
    refusedWith(
      payout(signer, { merchantId: "mer_r", destination, reference: "po_1" }),
      RefusalCode.APPROVAL_REUSED,
    );
  });

  it("sends a payout without an approval only to the linked wallet", () => {
    const signer = start();
    const plain = allowed(signer, "mer_s");
    const linked = allowed(signer, "mer_s", true);
    refusedWith(
      payout(signer, { merchantId: "mer_s", destination: plain, approved: false }),
      RefusalCode.DESTINATION_NOT_ALLOWED,
    );
    expect(payout(signer, { merchantId: "mer_s", destination: linked, approved: false }).ok).toBe(true);
    // Linking another address unlinks the first.
    allowed(signer, "mer_s", true);
    refusedWith(
      payout(signer, { merchantId: "mer_s", destination: linked, approved: false }),
      RefusalCode.DESTINATION_NOT_ALLOWED,
    );
  });

  it("still refuses payouts without an approval when no payout policy runs", () => {
    const signer = createTestSigner({ now: () => clock });
    signers.push(signer);
    refusedWith(
      payout(signer, { merchantId: "mer_x", destination: addr(), approved: false }),
      RefusalCode.APPROVAL_MISSING,
    );
  });
});

describe("payout velocity", () => {
  it("limits each merchant's count and amount per UTC day", () => {
    const signer = start();
    const destination = allowed(signer, "mer_v");
    for (let i = 0; i < 3; i += 1) expect(payout(signer, { merchantId: "mer_v", destination }).ok).toBe(true);
    refusedWith(payout(signer, { merchantId: "mer_v", destination }), RefusalCode.VELOCITY_EXCEEDED);
    const other = allowed(signer, "mer_w");
    refusedWith(
      payout(signer, { merchantId: "mer_w", destination: other, amount: 3_000_001n }),
      RefusalCode.VELOCITY_EXCEEDED,
    );
    expect(payout(signer, { merchantId: "mer_w", destination: other, amount: 3_000_000n }).ok).toBe(true);
    // A new UTC day starts afresh.
    clock = new Date("2026-03-04T00:00:00Z");
    expect(payout(signer, { merchantId: "mer_v", destination }).ok).toBe(true);
  });

  it("limits the total over all merchants, and survives a restart", () => {
    const first = start({
      limits: { perMerchant: { count: 10, amount: 10n ** 12n }, total: { count: 2, amount: 10n ** 12n } },
    });
    const a = allowed(first, "mer_1");
    const b = allowed(first, "mer_2");
    expect(payout(first, { merchantId: "mer_1", destination: a }).ok).toBe(true);
    expect(payout(first, { merchantId: "mer_2", destination: b, reference: "po_once" }).ok).toBe(true);
    refusedWith(payout(first, { merchantId: "mer_2", destination: b }), RefusalCode.VELOCITY_EXCEEDED);
    first.close();
    signers.splice(signers.indexOf(first), 1);
    const again = start(
      { limits: { perMerchant: { count: 10, amount: 10n ** 12n }, total: { count: 2, amount: 10n ** 12n } } },
      first.dir,
      first.approvers,
    );
    // The list, today's totals and the paid payouts all come back from the audit chain.
    expect(again.core.listPayoutDestinations("mer_1").map((d) => d.address)).toEqual([a]);
    refusedWith(payout(again, { merchantId: "mer_1", destination: a }), RefusalCode.VELOCITY_EXCEEDED);
    clock = new Date("2026-03-05T00:00:00Z");
    refusedWith(
      payout(again, { merchantId: "mer_2", destination: b, reference: "po_once" }),
      RefusalCode.APPROVAL_REUSED,
    );
    expect(payout(again, { merchantId: "mer_2", destination: b }).ok).toBe(true);
  });
});
