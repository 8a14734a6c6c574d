import { describe, expect, it } from "vitest";
import { isEventType, payoutEventType } from "./event-types.js";
import { DEPOSIT_STAGES, depositMessageId, isEventMessage } from "./messages.js";

describe("deposit message ids", () => {
  it("are one per stage of a transfer, the final one being the transfer id", () => {
    const ids = DEPOSIT_STAGES.map((stage) => depositMessageId({ transfer_id: "solana:sig:0", stage }));
    expect(ids).toEqual(["solana:sig:0:seen", "solana:sig:0", "solana:sig:0:dropped"]);
  });
});

describe("event messages", () => {
  const message = {
    merchant_id: "mer_1",
    mode: "test",
    event: { id: "evt_1", type: "payout.completed", created_at: "", is_test: true, data: {} },
  };
  it("are recognised when their type is on the closed list", () => {
    expect(isEventMessage(message)).toBe(true);
  });
  it("are refused with a type off the list, another mode, or no event id", () => {
    expect(isEventMessage({ ...message, event: { ...message.event, type: "payout.canceled" } })).toBe(false);
    expect(isEventMessage({ ...message, mode: "staging" })).toBe(false);
    expect(isEventMessage({ ...message, event: { ...message.event, id: 1 } })).toBe(false);
    expect(isEventMessage(null)).toBe(false);
  });
});

describe("payout event names", () => {
  it("come from the status they announce", () => {
    expect(payoutEventType("failed")).toBe("payout.failed");
    expect(isEventType(payoutEventType("processing"))).toBe(true);
  });
});
