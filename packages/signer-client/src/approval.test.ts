import { createPublicKey, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { approvalPayload, approverKeyFromSeed, generateApproverKey, signApproval } from "./approval.js";
import type { IntentInput } from "./intent.js";

const intent: IntentInput = {
  intentId: "po_123",
  chain: "solana",
  mode: "live",
  asset: "SOL",
  amount: 1_500_000n,
  kind: "payout",
  destination: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
  reference: "po_123",
};

describe("approvals", () => {
  it("encodes the intent canonically, one field per line", () => {
    expect(new TextDecoder().decode(approvalPayload(intent))).toBe(
      [
        "gateway.signer.v1.approval",
        "kind=payout",
        "intent_id=po_123",
        "chain=solana",
        "mode=live",
        "asset=SOL",
        "amount=1500000",
        "destination=9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
        "reference=po_123",
        "merchant_id=",
        "expires_at_ms=0",
      ].join("\n"),
    );
  });

  it("signs with a key whose public half verifies, and any change breaks it", () => {
    const { seed, publicKey } = generateApproverKey();
    const privateKey = approverKeyFromSeed(Buffer.from(seed, "hex"));
    const approval = signApproval({ intent, keyId: "api-1", privateKey });
    const spki = Buffer.concat([
      Buffer.from("302a300506032b6570032100", "hex"),
      Buffer.from(publicKey, "hex"),
    ]);
    const key = createPublicKey({ key: spki, format: "der", type: "spki" });
    expect(verify(null, approvalPayload(intent), key, approval.signature)).toBe(true);
    expect(verify(null, approvalPayload({ ...intent, amount: 1_500_001n }), key, approval.signature)).toBe(
      false,
    );
  });

  it("refuses values with line breaks, which would make the encoding ambiguous", () => {
    expect(() => approvalPayload({ ...intent, reference: "a\namount=1" })).toThrow(/line break/);
  });
});
