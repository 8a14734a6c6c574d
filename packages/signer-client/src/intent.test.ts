// The chains' wire values come from the generated enum by name (CHAIN_<NAME>), and the signed
// messages spell each chain as the contracts do: nothing here lists the chains.
import { create } from "@bufbuild/protobuf";
import { CHAINS } from "@gateway/contracts";
import { ApprovalEncodingError, approvalMessage, Chain, IntentSchema } from "@gateway/signer-proto";
import { describe, expect, it } from "vitest";
import { approvalPayload } from "./approval.js";
import { CHAIN_TO_PROTO, chainFromProto, type IntentInput, toProtoIntent } from "./intent.js";

const refund = (chain: IntentInput["chain"]): IntentInput => ({
  kind: "refund",
  intentId: "refund:r1",
  chain,
  mode: "live",
  asset: "USDC",
  amount: 1n,
  destination: "d",
  reference: "p1",
});

describe("the chains on the wire", () => {
  it("gives each chain the enum value named after it, which reads back as the chain", () => {
    for (const chain of CHAINS) {
      expect(Chain[CHAIN_TO_PROTO[chain]]).toBe(chain.toUpperCase());
      expect(chainFromProto(CHAIN_TO_PROTO[chain])).toBe(chain);
    }
    expect(new Set(Object.values(CHAIN_TO_PROTO)).size).toBe(CHAINS.length);
    expect(chainFromProto(Chain.UNSPECIFIED)).toBeUndefined();
  });

  it("signs each chain under its contracts name, and refuses an intent with none or an unknown one", () => {
    for (const chain of CHAINS)
      expect(new TextDecoder().decode(approvalPayload(refund(chain)))).toContain(`\nchain=${chain}\n`);
    for (const chain of [Chain.UNSPECIFIED, 99 as Chain]) {
      const intent = create(IntentSchema, { ...toProtoIntent(refund(CHAINS[0])), chain });
      expect(() => approvalMessage(intent)).toThrow(ApprovalEncodingError);
    }
  });
});
