import { PAYOUT_STATUSES, type PayoutStatus } from "@gateway/contracts";
import { describe, expect, it } from "vitest";
import { decide, newPayout, type PayoutMessage, type PayoutState, payoutStep } from "./payout.js";

const created = newPayout({
  id: "po_test",
  merchantId: "mer_test",
  mode: "live",
  chain: "solana",
  coin: "USDC",
  amount: 10_000_000n,
  networkFee: 10_000n,
  destination: "Dest1111111111111111111111111111111111111111",
  kind: "manual",
});
const inStatus = (status: PayoutStatus, fields: Partial<PayoutState> = {}): PayoutState => ({
  ...created.state,
  status,
  ...fields,
});
const START: PayoutMessage = { type: "start" };
const COMPLETE: PayoutMessage = { type: "complete", txid: "sig1" };
const FAIL: PayoutMessage = { type: "fail", reason: "refused by the signer" };

describe("newPayout", () => {
  it("is pending, reserves its amount, then asks settlement to execute it", () => {
    expect(created.state).toMatchObject({
      status: "pending",
      simulated: false,
      txid: null,
      failureReason: null,
    });
    expect(created.effects).toEqual([{ type: "reserve", alreadySent: false }, { type: "execute" }]);
  });

  it("marks a test payout simulated and passes on a put-back payout's alreadySent", () => {
    const test = newPayout({ ...created.state, mode: "test" }, { alreadySent: true });
    expect(test.state.simulated).toBe(true);
    expect(test.effects[0]).toEqual({ type: "reserve", alreadySent: true });
  });
});

describe("decide", () => {
  it("pending → processing announces it and books nothing", () => {
    const d = decide(inStatus("pending"), START);
    expect(d.rejected).toBeUndefined();
    expect(d.state.status).toBe("processing");
    expect(d.effects).toEqual([{ type: "event", event: "payout.processing" }]);
  });

  it("completion spends the reserve before the event, from pending or processing", () => {
    for (const from of ["pending", "processing"] as const) {
      const d = decide(inStatus(from), COMPLETE);
      expect(d.state).toMatchObject({ status: "completed", txid: "sig1", failureReason: null });
      expect(d.effects).toEqual([{ type: "settle" }, { type: "event", event: "payout.completed" }]);
    }
  });

  it("a simulated completion has no txid", () => {
    const d = decide(inStatus("processing", { mode: "test", simulated: true }), {
      type: "complete",
      txid: null,
    });
    expect(d.state.txid).toBeNull();
    expect(d.state.status).toBe("completed");
  });

  it("failure releases the reserve and keeps the reason, from pending or processing", () => {
    for (const from of ["pending", "processing"] as const) {
      const d = decide(inStatus(from), FAIL);
      expect(d.state).toMatchObject({ status: "failed", failureReason: "refused by the signer", txid: null });
      expect(d.effects).toEqual([{ type: "release" }, { type: "event", event: "payout.failed" }]);
    }
  });

  it("a message to the status the payout is in is a replay; a finished payout never changes", () => {
    expect(decide(inStatus("processing"), START).rejected?.code).toBe("duplicate");
    expect(decide(inStatus("completed"), COMPLETE).rejected?.code).toBe("duplicate");
    expect(decide(inStatus("failed"), FAIL).rejected?.code).toBe("duplicate");
    for (const [status, message] of [
      ["completed", START],
      ["completed", FAIL],
      ["failed", START],
      ["failed", COMPLETE],
    ] as const) {
      const state = inStatus(status, { txid: "kept", failureReason: status === "failed" ? "why" : null });
      const d = decide(state, message);
      expect(d.rejected?.code).toBe("not_applicable");
      expect(d.state).toBe(state);
      expect(d.effects).toEqual([]);
    }
  });

  it("answers every status with every message", () => {
    for (const status of PAYOUT_STATUSES) {
      for (const message of [START, COMPLETE, FAIL]) {
        expect(() => decide(inStatus(status), message)).not.toThrow();
      }
    }
  });
});

describe("payoutStep", () => {
  it("sends live payouts, simulates test ones, and leaves finished ones alone", () => {
    expect(payoutStep({ status: "pending", mode: "live" })).toBe("send");
    expect(payoutStep({ status: "processing", mode: "live" })).toBe("send");
    expect(payoutStep({ status: "pending", mode: "test" })).toBe("simulate");
    expect(payoutStep({ status: "completed", mode: "live" })).toBe("none");
    expect(payoutStep({ status: "failed", mode: "test" })).toBe("none");
  });
});
