// `npm run after-restore -- --chains-only` against the local networks: each chain's package says
// which coin an asset is (a Sui coin type in any spelling) and what became of a signed transaction,
// so a sweep final on its chain for a deposit wallet the database does not have is booked in
// suspense, and an asset no configuration knows is named.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Connection, Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./processes.js";

let db: TestDatabase;
let solana: SolanaLocalnet;
let sui: SuiLocalnet;
let dir: string;

beforeAll(async () => {
  [db, solana, sui] = await Promise.all([
    createTestDatabase(),
    createSolanaLocalnet({ host: "127.0.0.1", rpcPort: 0, wsPort: 0, slotMs: 20 }),
    createSuiLocalnet({ port: 0, checkpointIntervalMs: 0 }),
  ]);
  dir = mkdtempSync(path.join(os.tmpdir(), "after-restore-"));
});
afterAll(async () => {
  await solana?.close();
  await sui?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The script as an operator runs it: its output and exit status (the local networks run in this process). */
async function afterRestore(args: string[], env: Record<string, string>) {
  const options = { cwd: ROOT, timeout: 60_000, env: { PATH: process.env.PATH ?? "", ...env } };
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "scripts/after-restore.ts", ...args],
      options,
    );
    return { status: 0, stdout };
  } catch (err) {
    const failed = err as { code: number; stdout: string };
    return { status: failed.code, stdout: failed.stdout };
  }
}

/** A live sweep as `signer record` prints it, for a deposit index the database has no wallet of. */
function signedSweep(
  seq: number,
  chain: string,
  asset: string,
  amount: bigint,
  txid: string,
  bytes: Uint8Array,
) {
  const intent = { intentId: `sweep:${seq}`, kind: "sweep", chain, mode: "live", asset, amount: `${amount}` };
  return JSON.stringify({
    type: "signed",
    seq,
    at: new Date().toISOString(),
    intent: { ...intent, depositIndex: 9_000 + seq },
    txid,
    transaction: Buffer.from(bytes).toString("base64"),
  });
}

describe("after-restore's chain step", () => {
  it("books what each chain shows final, and names an asset no configuration knows", async () => {
    const signature = solana.fund(Keypair.generate().publicKey.toBase58(), "USDC", "2");
    await solana.waitForFinalizedSlot(solana.slot());
    const sent = await new Connection(solana.rpcUrl, "finalized").getTransaction(signature, {
      commitment: "finalized",
      maxSupportedTransactionVersion: 0,
    });
    const message = sent!.transaction.message.serialize();
    const grant = await sui.fund(new Ed25519Keypair().toSuiAddress(), "SUI", 5n);
    sui.produceCheckpoint();
    const record = path.join(dir, "signer-record.jsonl");
    writeFileSync(
      record,
      [
        signedSweep(1, "solana", solana.mints.USDC, 2_000_000n, signature, message),
        // The signer spells coin types in their long form; the short one is the same coin.
        signedSweep(2, "sui", "0x2::sui::SUI", 5n, grant.digest, new Uint8Array([0])),
        signedSweep(3, "solana", "XYZ", 1n, signature, message),
      ].join("\n"),
    );
    const run = await afterRestore(["--signer-record", record, "--chains-only"], {
      DATABASE_URL: db.url,
      SOLANA_RPC_URL: solana.rpcUrl,
      SOLANA_USDC_MINT: solana.mints.USDC,
      SOLANA_USDT_MINT: solana.mints.USDT,
      SUI_GRPC_URL: sui.url,
      SUI_NETWORK: "localnet",
      SUI_USDC_COIN_TYPE: sui.coinType("USDC"),
      SUI_USDT_COIN_TYPE: sui.coinType("USDT"),
    });
    expect(run.stdout.trim().split("\n")).toEqual([
      `sweep sweep:1 (2000000 base units of solana USDC, ${signature}) is final on chain for a deposit wallet the database does not have: booked against the suspense account`,
      `sweep sweep:2 (5 base units of sui SUI, ${grant.digest}) is final on chain for a deposit wallet the database does not have: booked against the suspense account`,
      "NOT booked: sweep:3: solana XYZ is not a coin this configuration knows",
    ]);
    expect(run.status).toBe(1);
  });
});
