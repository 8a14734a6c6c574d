// The newcomer's command for Sui: funds a fresh local keypair from the faucet and pays an
// address with a real signed transaction through SuiGrpcClient, then prints the digest.
//   pnpm --filter @gateway/sui-localnet run pay -- --to 0x… --coin USDC --amount 12.50
import { parseArgs } from "node:util";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { isValidSuiAddress, normalizeSuiAddress } from "@mysten/sui/utils";
import { type CoinSymbol, formatAmount, isCoinSymbol, parseDecimalAmount } from "./coins.js";
import type { LocalnetInfo } from "./localnet.js";
import { buildPayment, coinRefs } from "./payment-builder.js";

const GAS_FUNDING = "0.05";

async function post(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { error?: string };
  if (!res.ok) throw new Error(`faucet: ${json.error ?? res.status}`);
  return json;
}

/**
 * Funds the payer from the faucet with the amount and its gas, then pays `to`. A fresh keypair
 * unless `payer` is given (a customer paying twice from one wallet).
 */
export async function pay(options: {
  url: string;
  to: string;
  coin: CoinSymbol;
  amount: string;
  payer?: Ed25519Keypair;
}) {
  const info = (await (await fetch(`${options.url}/info`)).json()) as LocalnetInfo;
  const coin = info.coins.find((candidate) => candidate.symbol === options.coin)!;
  const amount = parseDecimalAmount(options.amount, coin.decimals);
  const payer = options.payer ?? new Ed25519Keypair();
  const owner = payer.toSuiAddress();

  if (options.coin === "SUI") {
    // One coin pays both the amount and the gas.
    const total = amount + parseDecimalAmount(GAS_FUNDING, coin.decimals);
    await post(`${options.url}/faucet`, { owner, coin: "SUI", amount: formatAmount(total, coin.decimals) });
  } else {
    await post(`${options.url}/faucet`, { owner, coin: options.coin, amount: options.amount });
    await post(`${options.url}/faucet`, { owner, coin: "SUI", amount: GAS_FUNDING });
  }

  const client = new SuiGrpcClient({ network: "localnet", baseUrl: options.url });
  const suiType = info.coins.find((candidate) => candidate.symbol === "SUI")!.coinType;
  const gasPrice = BigInt((await client.getReferenceGasPrice()).referenceGasPrice);
  const bytes = await buildPayment({
    sender: owner,
    gasPayment: await coinRefs(client, owner, suiType),
    gasPrice,
    gasBudget: gasPrice * 5000n,
    coins: options.coin === "SUI" ? [] : await coinRefs(client, owner, coin.coinType),
    amount,
    recipient: normalizeSuiAddress(options.to),
  });
  const { signature } = await payer.signTransaction(bytes);
  const result = await client.executeTransaction({ transaction: bytes, signatures: [signature] });
  const executed = result.Transaction ?? result.FailedTransaction!;
  if (!result.Transaction) throw new Error(`payment failed: ${executed.status.error?.message}`);
  const final = await client.waitForTransaction({ digest: executed.digest });
  return { digest: executed.digest, from: owner, checkpoint: final.Transaction?.checkpoint ?? null };
}

async function main() {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((arg) => arg !== "--"),
    options: {
      to: { type: "string" },
      coin: { type: "string", default: "USDC" },
      amount: { type: "string" },
      url: { type: "string", default: process.env["SUI_LOCALNET_URL"] ?? "http://127.0.0.1:9000" },
    },
  });
  if (
    !values.to ||
    !isValidSuiAddress(normalizeSuiAddress(values.to)) ||
    !values.amount ||
    !isCoinSymbol(values.coin)
  ) {
    console.error(
      "usage: pay --to 0x<address> --coin SUI|USDC|USDT --amount <decimal> [--url http://127.0.0.1:9000]",
    );
    process.exit(2);
  }
  const result = await pay({ url: values.url!, to: values.to, coin: values.coin, amount: values.amount });
  console.log(
    `paid ${values.amount} ${values.coin} to ${normalizeSuiAddress(values.to)} from ${result.from}`,
  );
  console.log(result.digest);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
