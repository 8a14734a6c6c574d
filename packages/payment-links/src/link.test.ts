import { describe, expect, it } from "vitest";
import { decide, type PaymentLinkState } from "./link.js";

const link: PaymentLinkState = {
  id: "plink_1",
  merchantId: "mer_1",
  mode: "test",
  currency: "USD",
  amount: 2500n,
  description: "T-shirt",
  redirectUrl: null,
  active: true,
};

describe("payment link decider", () => {
  it("opens an active link into one payment of its amount", () => {
    expect(decide(link, { type: "open", paymentId: "p1" })).toEqual({
      state: link,
      effects: [
        {
          type: "create_payment",
          paymentId: "p1",
          currency: "USD",
          amount: 2500n,
          description: "T-shirt",
          redirectUrl: null,
        },
      ],
    });
  });

  it("opens nothing once deactivated, and deactivating twice is once", () => {
    const off = decide(link, { type: "deactivate" }).state;
    expect(off.active).toBe(false);
    expect(decide(off, { type: "deactivate" })).toEqual({ state: off, effects: [] });
    expect(decide(off, { type: "open", paymentId: "p2" })).toEqual({
      state: off,
      effects: [],
      rejected: "inactive",
    });
  });
});
