// Measures what the local network sustains here: faucet grants, user payments executed through
// SuiGrpcClient, and the checkpoint clock under that load.
//   pnpm --filter @gateway/sui-localnet run measure [payments]        (network in this process)
//   SUI_LOCALNET_URL=http://127.0.0.1:9000 pnpm … run measure          (a network started apart)
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { createSuiLocalnet } from "./localnet.js";
import { buildPayment } from "./payment-builder.js";

const PAYMENTS = Number(process.argv[2] ?? 500);
const CONCURRENCY = 16;

const external = process.env["SUI_LOCALNET_URL"];
const net = external ? undefined : await createSuiLocalnet({ port: 0, checkpointIntervalMs: 250 });
const url = external ?? net!.url;
const client = new SuiGrpcClient({ network: "localnet", baseUrl: url });

async function fund(owner: string) {
  if (net) return (await net.fund(owner, "SUI", 1_000_000_000n)).coin;
  const res = await fetch(`${url}/faucet`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ owner, coin: "SUI", amount: "1" }),
  });
  return ((await res.json()) as { object: { objectId: string; version: string; digest: string } }).object;
}
const checkpoints: Array<{ at: number; transactions: number }> = [];
const abort = new AbortController();
const call = client.subscriptionService.subscribeCheckpoints(
  { readMask: { paths: ["sequence_number", "transactions.digest"] } },
  { abort: abort.signal },
);
const seenAt = new Map<string, number>();
void (async () => {
  try {
    for await (const frame of call.responses) {
      const now = performance.now();
      checkpoints.push({ at: now, transactions: frame.checkpoint?.transactions.length ?? 0 });
      for (const tx of frame.checkpoint?.transactions ?? []) seenAt.set(tx.digest!, now);
    }
  } catch {
    // The stream ends with an abort when the measurement is over.
  }
})();

const payers = Array.from({ length: PAYMENTS }, () => new Ed25519Keypair());
let started = performance.now();
const grants: Array<{ objectId: string; version: string; digest: string }> = [];
for (const payer of payers) grants.push(await fund(payer.toSuiAddress()));
const faucetPerSecond = PAYMENTS / ((performance.now() - started) / 1000);

const executedAt = new Map<string, number>();
started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < PAYMENTS) {
      const index = next++;
      const payer = payers[index]!;
      const bytes = await buildPayment({
        sender: payer.toSuiAddress(),
        gasPayment: [grants[index]!],
        gasPrice: 1000n,
        gasBudget: 5_000_000n,
        coins: [],
        amount: 1000n,
        recipient: "0x42",
      });
      const { signature } = await payer.signTransaction(bytes);
      const result = await client.executeTransaction({ transaction: bytes, signatures: [signature] });
      executedAt.set(result.Transaction!.digest, performance.now());
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
await new Promise((resolve) => setTimeout(resolve, 600));
abort.abort();

const gaps = checkpoints.slice(1).map((cp, index) => cp.at - checkpoints[index]!.at);
const latencies = [...executedAt]
  .map(([digest, at]) => (seenAt.get(digest) ?? Number.NaN) - at)
  .sort((a, b) => a - b);
const pct = (values: number[], p: number) =>
  values[Math.min(values.length - 1, Math.floor(values.length * p))]!;
console.log(
  JSON.stringify(
    {
      payments: PAYMENTS,
      concurrency: CONCURRENCY,
      faucetGrantsPerSecond: Math.round(faucetPerSecond),
      paymentsPerSecond: Math.round(PAYMENTS / elapsed),
      checkpoints: checkpoints.length,
      maxTransactionsInOneCheckpoint: Math.max(...checkpoints.map((cp) => cp.transactions)),
      checkpointGapMs: {
        p50: Math.round(
          pct(
            gaps.sort((a, b) => a - b),
            0.5,
          ),
        ),
        max: Math.round(Math.max(...gaps)),
      },
      executionToCheckpointMs: {
        p50: Math.round(pct(latencies, 0.5)),
        p99: Math.round(pct(latencies, 0.99)),
      },
    },
    null,
    2,
  ),
);
await net?.close();
