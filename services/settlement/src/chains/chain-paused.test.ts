import type { Chain } from "@gateway/domain";
import { describe, expect, it } from "vitest";
import { ChainPausedError, pausedWhileFailing } from "./chain-paused.js";
import type { RefundWork, SweepWork } from "./chain-settlement.js";

/** An adapter that records what reached it: the chain itself is not the point here. */
function recordingAdapter(chain: Chain) {
  const sent: string[] = [];
  const send = async (work: { intentId: string }) => {
    sent.push(work.intentId);
    return { txid: `tx-${work.intentId}` };
  };
  return {
    sent,
    adapter: {
      chain,
      sweep: (work: SweepWork) => send(work),
      refund: (work: RefundWork) => send(work),
      payout: (work: { intentId: string }) => send(work),
    },
  };
}

const sweep = { intentId: "sweep:p1" } as SweepWork;

describe("pausedWhileFailing", () => {
  it("sends nothing on a chain whose preflight fails, and passes everything through once it passes", async () => {
    let failing = true;
    const { sent, adapter } = recordingAdapter("sui");
    const guarded = pausedWhileFailing(adapter, (chain) => chain !== "sui" || !failing);
    await expect(guarded.sweep(sweep)).rejects.toBeInstanceOf(ChainPausedError);
    await expect(guarded.refund({ intentId: "refund:r1" } as RefundWork)).rejects.toThrow(
      "sui: chain preflight failing",
    );
    await expect(guarded.payout({ intentId: "payout:po1" })).rejects.toBeInstanceOf(ChainPausedError);
    expect(sent).toEqual([]);
    failing = false;
    expect(await guarded.sweep(sweep)).toEqual({ txid: "tx-sweep:p1" });
    expect(await guarded.payout({ intentId: "payout:po1" })).toEqual({ txid: "tx-payout:po1" });
    expect(sent).toEqual(["sweep:p1", "payout:po1"]);
  });
});
