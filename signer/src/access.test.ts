import { describe, expect, it } from "vitest";
import { INTENT_KIND_ROLES, mayCall, mayRequest, ROLES, RPC_ROLES } from "./access.js";

describe("access table", () => {
  it("opens each RPC to the roles whose service calls it, and nothing else", () => {
    expect(mayCall("api", "DeriveDepositAddress")).toBe(true);
    expect(mayCall("settlement", "DeriveDepositAddress")).toBe(false);
    expect(mayCall("api", "GetServiceAddresses")).toBe(true);
    expect(mayCall("settlement", "GetServiceAddresses")).toBe(true);
    for (const rpc of ["Sign", "SignBatch"]) {
      expect(mayCall("settlement", rpc)).toBe(true);
      expect(mayCall("api", rpc)).toBe(false);
    }
    // An RPC without a row is closed to everyone.
    for (const role of ROLES) expect(mayCall(role, "Unlisted")).toBe(false);
  });

  it("lets only settlement ask for sweeps, refunds and payouts", () => {
    for (const kind of ["sweep", "refund", "payout", "nonceAccount"] as const) {
      expect(mayRequest("settlement", kind)).toBe(true);
      expect(mayRequest("api", kind)).toBe(false);
    }
    expect(mayRequest("api", undefined)).toBe(true);
  });

  it("names every RPC of the service, so a new RPC cannot be forgotten", async () => {
    const { SignerService } = await import("@gateway/signer-proto");
    expect(Object.keys(RPC_ROLES).sort()).toEqual(SignerService.methods.map((m) => m.name).sort());
    const kinds = (await import("@gateway/signer-proto")).IntentSchema.oneofs[0]!.fields.map(
      (f) => f.localName,
    );
    expect(Object.keys(INTENT_KIND_ROLES).sort()).toEqual(kinds.sort());
  });
});
