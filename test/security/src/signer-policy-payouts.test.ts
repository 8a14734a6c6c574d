// The payout policy against the signer as deployed (its own process, mTLS, role certificates):
// payouts reach only allow-listed destinations in effect, approvals are bound to one payout and
// expire, scheduled payouts (no approval) reach only the linked wallet, velocity is limited per
// merchant and in total, and only the API's certificate changes the allow-list. Every refusal
// carries its code and is an audit line.
import { readFileSync } from "node:fs";
import { buildSolanaTransfer, SOL_ASSET } from "@gateway/chain-tx";
import { nonceAccountAddress } from "@gateway/signer";
import {
  approverKeyFromSeed,
  generateApproverKey,
  type IntentInput,
  type PayoutDestinationInput,
  SignerRefusedError,
  type SignInput,
  signApproval,
  signDestinationApproval,
} from "@gateway/signer-client";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SignerProcess, startSignerProcess } from "./signer-process.js";

const MNEMONIC = "test test test test test test test test test test test junk";
const DELAY_SECONDS = 2;
const apiApprover = generateApproverKey();
const refundApprover = generateApproverKey();
const apiKey = approverKeyFromSeed(Buffer.from(apiApprover.seed, "hex"));

let signer: SignerProcess;
let live: { vault: string; gas: string };
let n = 0;
const id = (p: string) => `${p}_pol_${process.pid}_${++n}`;
const address = () => Keypair.generate().publicKey.toBase58();

beforeAll(async () => {
  signer = await startSignerProcess({
    SIGNER_SEED_MNEMONIC: MNEMONIC,
    SIGNER_TRUSTED_APPROVERS: JSON.stringify([
      { keyId: "api-1", approves: "payout", publicKey: apiApprover.publicKey },
      { keyId: "settlement-1", approves: "refund", publicKey: refundApprover.publicKey },
    ]),
    SIGNER_CAPS: JSON.stringify({ "solana:*": { perIntent: "1000000000", perDay: "50000000000" } }),
    SIGNER_PAYOUT_DESTINATION_DELAY_SECONDS: String(DELAY_SECONDS),
    SIGNER_APPROVAL_MAX_TTL_SECONDS: "600",
    SIGNER_PAYOUT_LIMITS: JSON.stringify({
      perMerchant: { count: 3, amount: "5000000" },
      total: { count: 100, amount: "12000000" },
    }),
  });
  live = (await signer.client.getServiceAddresses()).solana.live;
}, 90_000);
afterAll(async () => {
  await signer?.stop();
});

function destinationApproval(d: PayoutDestinationInput, expiresInMs = 300_000) {
  return signDestinationApproval({
    destination: d,
    keyId: "api-1",
    privateKey: apiKey,
    expiresAtMs: BigInt(Date.now() + expiresInMs),
  });
}

/** Asks for `address` as the API does after the merchant's code; resolves when it is in effect. */
async function allowListed(merchantId: string, options: { linked?: boolean; wait?: boolean } = {}) {
  const d = {
    merchantId,
    chain: "solana" as const,
    mode: "live" as const,
    address: address(),
    linked: options.linked ?? false,
  };
  const entry = await signer.client.requestPayoutDestination({ ...d, approval: destinationApproval(d) });
  if (options.wait !== false)
    await new Promise((r) => setTimeout(r, entry.effectiveAt.getTime() - Date.now() + 50));
  return d.address;
}

function payout(p: {
  merchantId: string;
  destination: string;
  amount?: bigint;
  reference?: string;
  intentId?: string;
  /** null: no approval (a scheduled payout). */
  approval?: { expiresInMs?: number; reference?: string } | null;
}): SignInput {
  const intentId = p.intentId ?? id("payout");
  const amount = p.amount ?? 1_000n;
  const intent: IntentInput = {
    intentId,
    chain: "solana",
    mode: "live",
    asset: SOL_ASSET,
    amount,
    kind: "payout",
    destination: p.destination,
    reference: p.reference ?? intentId,
    merchantId: p.merchantId,
  };
  const approved =
    p.approval === null
      ? intent
      : {
          ...intent,
          approval: signApproval({
            // An approval made for `approval.reference` (another payout) when given.
            intent: { ...intent, reference: p.approval?.reference ?? intent.reference },
            keyId: "api-1",
            privateKey: apiKey,
            expiresAtMs: BigInt(Date.now() + (p.approval?.expiresInMs ?? 300_000)),
          }),
        };
  const unsignedTransaction = buildSolanaTransfer({
    asset: SOL_ASSET,
    source: live.vault,
    destination: p.destination,
    gasWallet: live.gas,
    amount,
    nonceAccount: nonceAccountAddress(live.gas, 0),
    recentBlockhash: Keypair.generate().publicKey.toBase58(),
  });
  return { intent: approved, unsignedTransaction };
}

async function attempt(input: SignInput): Promise<string> {
  try {
    await signer.client.sign(input);
    return "SIGNED";
  } catch (error) {
    if (error instanceof SignerRefusedError) return error.refusal.code;
    throw error;
  }
}

function auditLines(): Record<string, unknown>[] {
  return readFileSync(signer.auditPath, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Refused with `code`, and the refusal is the audit line of that intent. */
async function expectRefused(input: SignInput, code: string): Promise<void> {
  expect(await attempt(input)).toBe(code);
  const line = auditLines()
    .reverse()
    .find((l) => (l.intent as { intentId?: string }).intentId === input.intent.intentId);
  expect(line).toMatchObject({ decision: "refused", code });
}

describe("signer payout policy over mTLS against the signer process", () => {
  it("refuses an address that is not on the merchant's allow-list", async () => {
    const merchantId = "mer_pol_list";
    const other = await allowListed("mer_pol_other");
    await expectRefused(payout({ merchantId, destination: address() }), "DESTINATION_NOT_ALLOWED");
    // Another merchant's destination is not this merchant's.
    await expectRefused(payout({ merchantId, destination: other }), "DESTINATION_NOT_ALLOWED");
    expect(await attempt(payout({ merchantId: "mer_pol_other", destination: other }))).toBe("SIGNED");
  });

  it("refuses an allow-listed address before its delay has passed", async () => {
    const merchantId = "mer_pol_delay";
    const destination = await allowListed(merchantId, { wait: false });
    await expectRefused(payout({ merchantId, destination }), "DESTINATION_NOT_ALLOWED");
    await new Promise((r) => setTimeout(r, DELAY_SECONDS * 1000 + 100));
    expect(await attempt(payout({ merchantId, destination }))).toBe("SIGNED");
  });

  it("refuses a cancelled destination", async () => {
    const merchantId = "mer_pol_cancel";
    const destination = await allowListed(merchantId);
    const cancelled = await signer.client.cancelPayoutDestination({
      merchantId,
      chain: "solana",
      mode: "live",
      address: destination,
    });
    expect(cancelled.cancelled).toBe(true);
    await expectRefused(payout({ merchantId, destination }), "DESTINATION_NOT_ALLOWED");
    const listed = await signer.client.listPayoutDestinations(merchantId);
    expect(listed).toMatchObject([{ address: destination, cancelled: true }]);
    expect(auditLines().some((l) => l.decision === "payout_destination_cancelled")).toBe(true);
  });

  it("refuses an approval reused for the same payout under another intent id", async () => {
    const merchantId = "mer_pol_reuse";
    const destination = await allowListed(merchantId);
    expect(await attempt(payout({ merchantId, destination, reference: "po_pol_once" }))).toBe("SIGNED");
    await expectRefused(payout({ merchantId, destination, reference: "po_pol_once" }), "APPROVAL_REUSED");
  });

  it("refuses an expired approval, and one that would live too long", async () => {
    const merchantId = "mer_pol_expired";
    const destination = await allowListed(merchantId);
    await expectRefused(
      payout({ merchantId, destination, approval: { expiresInMs: -1_000 } }),
      "APPROVAL_EXPIRED",
    );
    await expectRefused(
      payout({ merchantId, destination, approval: { expiresInMs: 3_600_000 } }),
      "APPROVAL_EXPIRED",
    );
  });

  it("refuses an approval made for another payout", async () => {
    const merchantId = "mer_pol_other_payout";
    const destination = await allowListed(merchantId);
    await expectRefused(
      payout({ merchantId, destination, reference: "po_pol_b", approval: { reference: "po_pol_a" } }),
      "APPROVAL_INVALID",
    );
  });

  it("refuses payouts over the merchant's daily count and amount", async () => {
    const counted = "mer_pol_count";
    const destination = await allowListed(counted);
    for (let i = 0; i < 3; i += 1)
      expect(await attempt(payout({ merchantId: counted, destination }))).toBe("SIGNED");
    await expectRefused(payout({ merchantId: counted, destination }), "VELOCITY_EXCEEDED");
    const big = "mer_pol_amount";
    const other = await allowListed(big);
    await expectRefused(
      payout({ merchantId: big, destination: other, amount: 5_000_001n }),
      "VELOCITY_EXCEEDED",
    );
  });

  it("refuses payouts over the daily total of all merchants", async () => {
    const destinations = await Promise.all(
      ["mer_pol_t1", "mer_pol_t2", "mer_pol_t3"].map((m) => allowListed(m)),
    );
    expect(
      await attempt(payout({ merchantId: "mer_pol_t1", destination: destinations[0]!, amount: 4_900_000n })),
    ).toBe("SIGNED");
    expect(
      await attempt(payout({ merchantId: "mer_pol_t2", destination: destinations[1]!, amount: 4_900_000n })),
    ).toBe("SIGNED");
    // Within mer_pol_t3's own limit, over the total.
    await expectRefused(
      payout({ merchantId: "mer_pol_t3", destination: destinations[2]!, amount: 4_900_000n }),
      "VELOCITY_EXCEEDED",
    );
  });

  it("sends a scheduled payout (no approval) only to the linked wallet", async () => {
    const merchantId = "mer_pol_scheduled";
    const linked = await allowListed(merchantId, { linked: true });
    const plain = await allowListed(merchantId);
    await expectRefused(
      payout({ merchantId, destination: plain, approval: null }),
      "DESTINATION_NOT_ALLOWED",
    );
    expect(await attempt(payout({ merchantId, destination: linked, approval: null }))).toBe("SIGNED");
  });

  it("lets the api certificate change the allow-list and refuses settlement's, and the reverse for Sign", async () => {
    const d = {
      merchantId: "mer_pol_roles",
      chain: "solana" as const,
      mode: "live" as const,
      address: address(),
      linked: true,
    };
    const api = signer.connect("api");
    const settlement = signer.connect("settlement");
    try {
      await expect(
        settlement.requestPayoutDestination({ ...d, approval: destinationApproval(d) }),
      ).rejects.toThrow(/ROLE_NOT_ALLOWED/);
      await expect(settlement.cancelPayoutDestination(d)).rejects.toThrow(/ROLE_NOT_ALLOWED/);
      await expect(settlement.listPayoutDestinations(d.merchantId)).rejects.toThrow(/ROLE_NOT_ALLOWED/);
      const entry = await api.requestPayoutDestination({ ...d, approval: destinationApproval(d) });
      expect(entry).toMatchObject({ address: d.address, linked: true, cancelled: false });
      await new Promise((r) => setTimeout(r, DELAY_SECONDS * 1000 + 100));
      const input = payout({ merchantId: d.merchantId, destination: d.address });
      await expect(api.sign(input)).rejects.toThrow(/ROLE_NOT_ALLOWED/);
      expect((await settlement.sign(input)).intentId).toBe(input.intent.intentId);
    } finally {
      api.close();
      settlement.close();
    }
    const roleRefusals = auditLines().filter((l) => l.code === "ROLE_NOT_ALLOWED");
    expect(roleRefusals.map((l) => (l.intent as { rpc: string; role: string }).rpc)).toEqual(
      expect.arrayContaining([
        "RequestPayoutDestination",
        "CancelPayoutDestination",
        "ListPayoutDestinations",
        "Sign",
      ]),
    );
    expect(
      roleRefusals.find((l) => (l.intent as { rpc: string }).rpc === "RequestPayoutDestination")?.intent,
    ).toMatchObject({ role: "settlement" });
  });

  it("refuses destination requests without a valid approval, and audits them", async () => {
    const d = {
      merchantId: "mer_pol_dest",
      chain: "solana" as const,
      mode: "live" as const,
      address: address(),
      linked: false,
    };
    const refused = async (
      approval: Parameters<typeof signer.client.requestPayoutDestination>[0]["approval"],
    ) => {
      try {
        await signer.client.requestPayoutDestination({ ...d, approval });
        return "ACCEPTED";
      } catch (error) {
        if (error instanceof SignerRefusedError) return error.refusal.code;
        throw error;
      }
    };
    expect(await refused(destinationApproval(d, -1_000))).toBe("APPROVAL_EXPIRED");
    expect(await refused(destinationApproval({ ...d, linked: true }))).toBe("APPROVAL_INVALID");
    expect(
      await refused(
        signDestinationApproval({
          destination: d,
          keyId: "settlement-1",
          privateKey: approverKeyFromSeed(Buffer.from(refundApprover.seed, "hex")),
          expiresAtMs: BigInt(Date.now() + 60_000),
        }),
      ),
    ).toBe("APPROVAL_INVALID");
    const approval = destinationApproval(d);
    expect(await refused(approval)).toBe("ACCEPTED");
    expect(await refused(approval)).toBe("APPROVAL_REUSED");
    const lines = auditLines().filter(
      (l) =>
        (l.intent as { rpc?: string; address?: string }).rpc === "RequestPayoutDestination" &&
        (l.intent as { address?: string }).address === d.address,
    );
    expect(lines.map((l) => l.code ?? l.decision)).toEqual([
      "APPROVAL_EXPIRED",
      "APPROVAL_INVALID",
      "APPROVAL_INVALID",
      "payout_destination_requested",
      "APPROVAL_REUSED",
    ]);
  });
});
