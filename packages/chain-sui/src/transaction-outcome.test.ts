// What the runbook after a restore reads of a signed transaction, against the local network.
import { buildSuiTransfer } from "@gateway/chain-tx";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { waitFor } from "@gateway/testkit";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { TransactionDataBuilder } from "@mysten/sui/transactions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suiTransactionOutcome } from "./transaction-outcome.js";

let net: SuiLocalnet;
let client: SuiGrpcClient;
const payer = new Ed25519Keypair();

beforeAll(async () => {
  net = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 50 });
  client = new SuiGrpcClient({ network: "localnet", baseUrl: net.url });
});
afterAll(async () => {
  await net?.close();
});

async function transfer(amount: bigint, coin: { objectId: string; version: string; digest: string }) {
  const gas = await net.fund(payer.toSuiAddress(), "SUI", 1_000_000_000n);
  const bytes = await buildSuiTransfer({
    sender: payer.toSuiAddress(),
    recipient: new Ed25519Keypair().toSuiAddress(),
    coins: [{ ...coin, version: BigInt(coin.version) }],
    amount,
    gas: { gasOwner: payer.toSuiAddress(), payment: [gas.coin], price: 1000n, budget: 50_000_000n },
  });
  return { bytes, digest: TransactionDataBuilder.getDigestFromBytes(bytes) };
}

async function execute(bytes: Uint8Array) {
  const { signature } = await payer.signTransaction(bytes);
  return client.executeTransaction({ transaction: bytes, signatures: [signature] });
}

/** The outcome once it is no longer `pending`. */
const settled = (digest: string, bytes: Uint8Array) =>
  waitFor(
    async () => {
      const outcome = await suiTransactionOutcome(client, digest, bytes);
      return outcome !== "pending" && outcome;
    },
    { what: "a final outcome" },
  );

describe("what became of a signed Sui transaction", () => {
  it("pending while its inputs are current; succeeded in a checkpoint; never for another spending the same versions", async () => {
    const usdc = await net.fund(payer.toSuiAddress(), "USDC", 5_000_000n);
    const first = await transfer(1_000_000n, usdc.coin);
    const rival = await transfer(2_000_000n, usdc.coin);
    expect(await suiTransactionOutcome(client, first.digest, first.bytes)).toBe("pending");
    await execute(first.bytes);
    expect(await settled(first.digest, first.bytes)).toBe("succeeded");
    // The coin moved to a new version: the rival, signed over the old one, can never execute.
    expect(await suiTransactionOutcome(client, rival.digest, rival.bytes)).toBe("never");
  });
});
