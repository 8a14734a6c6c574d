import { describe, expect, it } from "vitest";
import { depositsOf, normalizeCoinTypes } from "./deposits-in-transaction.js";

const USDC = "0x5ce079c1c76cf66da7ac9ae85f2774eb2e54538872f815bdbc296f68f5a07576::usdc::USDC";
const SUI = "0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI";
const addr = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const types = normalizeCoinTypes({ USDC, SUI: "0x2::sui::SUI" });

describe("depositsOf", () => {
  it("reports positive changes of known coins to watched addresses, with the payer as sender", () => {
    const reports = depositsOf(
      {
        digest: "D1",
        sender: addr(9),
        balanceChanges: [
          { address: addr(1), coinType: SUI, amount: "-1000000" },
          { address: addr(1), coinType: USDC, amount: "-12500000" },
          { address: addr(2), coinType: USDC, amount: "12500000" },
          { address: addr(3), coinType: USDC, amount: "5" },
          { address: addr(2), coinType: "0x9::other::OTHER", amount: "7" },
        ],
      },
      types,
      (a) => a === addr(2),
    );
    expect(reports).toEqual([
      {
        chain: "sui",
        address: addr(2),
        transfer_id: "sui:D1:2",
        coin: "USDC",
        amount: "12500000",
        sender: addr(1),
        stage: "final",
      },
    ]);
  });

  it("falls back to the transaction sender when no balance of the coin fell", () => {
    const [report] = depositsOf(
      { digest: "D2", sender: "0x9", balanceChanges: [{ address: addr(2), coinType: SUI, amount: "3" }] },
      types,
      () => true,
    );
    expect(report).toMatchObject({ coin: "SUI", sender: addr(9), transfer_id: "sui:D2:0" });
  });
});
