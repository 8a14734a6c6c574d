// Measures transactions a second through the JSON-RPC port: pre-signed SOL transfers and
// USDC transferChecked, sent as base64 `sendTransaction` (preflight on) by concurrent
// HTTP clients. `pnpm --filter @gateway/solana-localnet run throughput -- [count] [concurrency]`
import { Agent, request } from "node:http";
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { generateKeypair, signTransaction } from "./keys.js";
import { createSolanaLocalnet } from "./localnet.js";

const agent = new Agent({ keepAlive: true });

function postJson(body: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      net.rpcUrl,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const args = process.argv.slice(2).filter((arg) => arg !== "--");
const count = Number(args[0] ?? 3000);
const concurrency = Number(args[1] ?? 16);

const net = await createSolanaLocalnet({ rpcPort: 0, wsPort: 0, slotMs: 50 });
const usdc = new PublicKey(net.mints.USDC);
const payers = Array.from({ length: 16 }, () => generateKeypair());
for (const payer of payers) {
  net.fund(payer.publicKey.toBase58(), "SOL", "100");
  net.fund(payer.publicKey.toBase58(), "USDC", "1000000");
}
const recipient = generateKeypair().publicKey;
net.fund(recipient.toBase58(), "USDC", "1");
const recipientAta = getAssociatedTokenAddressSync(usdc, recipient);

async function run(kind: "sol" | "usdc"): Promise<number> {
  const { blockhash } = net.chain.latestBlockhash("confirmed");
  const bodies = Array.from({ length: count }, (_, i) => {
    const payer = payers[i % payers.length]!;
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash });
    if (kind === "sol") {
      tx.add(
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 1_000_000 + i }),
      );
    } else {
      const source = getAssociatedTokenAddressSync(usdc, payer.publicKey);
      tx.add(createTransferCheckedInstruction(source, usdc, recipientAta, payer.publicKey, BigInt(1 + i), 6));
    }
    const wire = Buffer.from(signTransaction(tx, [payer])).toString("base64");
    return JSON.stringify({
      jsonrpc: "2.0",
      id: i,
      method: "sendTransaction",
      params: [wire, { encoding: "base64" }],
    });
  });
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const json = (await postJson(body)) as { error?: unknown };
        if (json.error) failures += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (failures > 0) throw new Error(`${failures} of ${count} ${kind} transactions failed`);
  return count / seconds;
}

/** The same USDC transfers executed on the chain directly: the cost without HTTP and JSON. */
function direct(): number {
  const { blockhash } = net.chain.latestBlockhash("confirmed");
  const wires = Array.from({ length: count }, (_, i) => {
    const payer = payers[i % payers.length]!;
    const source = getAssociatedTokenAddressSync(usdc, payer.publicKey);
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      createTransferCheckedInstruction(source, usdc, recipientAta, payer.publicKey, BigInt(1_000_000 + i), 6),
    );
    return signTransaction(tx, [payer]);
  });
  const started = performance.now();
  for (const wire of wires) net.chain.sendTransaction(wire, { skipPreflight: false });
  return count / ((performance.now() - started) / 1000);
}

const sol = await run("sol");
const usdcRate = await run("usdc");
const directRate = direct();
console.log(
  JSON.stringify({
    count,
    concurrency,
    solTransfersPerSecond: Math.round(sol),
    usdcTransfersPerSecond: Math.round(usdcRate),
    directUsdcTransfersPerSecond: Math.round(directRate),
  }),
);
agent.destroy();
await net.close();
