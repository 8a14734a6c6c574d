import { gate } from "@gateway/testkit";
import { describe, expect, it } from "vitest";
import { createGasCoins } from "./gas-coins.js";
import type { OwnedCoin } from "./owned-coins.js";

const coin = (objectId: string): OwnedCoin => ({ objectId, version: "1", digest: "d", balance: 10_000n });

describe("gas coins of two wallets", () => {
  it("a pick for one wallet never gets the other's coins, even while the other's listing is in flight", async () => {
    const listed: string[] = [];
    const aListed = gate();
    const gasCoins = createGasCoins({
      // The full node's answer for each owner; A's is slow.
      list: async (owner) => {
        listed.push(owner);
        if (owner === "A") await aListed.opened;
        return owner === "A" ? [coin("a1"), coin("a2")] : [coin("b1")];
      },
      budget: 1_000n,
      busy: new Set(),
    });
    const fromA = gasCoins.pick("A");
    const fromB = await gasCoins.pick("B");
    expect(fromB.objectId).toBe("b1");
    aListed.open();
    expect(["a1", "a2"]).toContain((await fromA).objectId);
    // Each wallet keeps its own coins: the next picks list nothing again.
    expect(["a1", "a2"]).toContain((await gasCoins.pick("A")).objectId);
    expect(listed).toEqual(["A", "B"]);
  });
});
