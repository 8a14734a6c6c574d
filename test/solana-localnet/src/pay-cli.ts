// pnpm --filter @gateway/solana-localnet run pay -- --to <address> --coin USDC --amount 12.50
import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadOrCreateWallet, payFromLocalWallet } from "./pay.js";

const USAGE = `usage: pay --to <address> --amount <decimal> [--coin USDC|USDT|SOL] [--rpc <url>] [--ws <url>] [--wallet <file>]
  Pays <address> (a wallet address, e.g. a live payment's deposit address) from a local
  wallet, topping the wallet up from the local network's faucet first. Prints the signature.`;

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === "--"));
  const { values } = parseArgs({
    args,
    options: {
      to: { type: "string" },
      amount: { type: "string" },
      coin: { type: "string", default: "USDC" },
      rpc: { type: "string", default: process.env["SOLANA_LOCALNET_RPC_URL"] ?? "http://127.0.0.1:8899" },
      ws: { type: "string" },
      wallet: {
        type: "string",
        default:
          process.env["SOLANA_LOCALNET_WALLET"] ??
          join(homedir(), ".config", "gateway", "solana-localnet-payer.json"),
      },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help || !values.to || !values.amount) {
    console.error(USAGE);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const coin = values.coin.toUpperCase();
  if (coin !== "USDC" && coin !== "USDT" && coin !== "SOL") {
    console.error(`--coin must be USDC, USDT or SOL, not ${values.coin}`);
    process.exitCode = 2;
    return;
  }
  const rpc = new URL(values.rpc);
  const wsUrl =
    values.ws ??
    process.env["SOLANA_LOCALNET_WS_URL"] ??
    `ws://${rpc.hostname}:${Number(rpc.port || 8899) + 1}`;
  const wallet = await loadOrCreateWallet(values.wallet);
  const result = await payFromLocalWallet({
    rpcUrl: values.rpc.replace(/\/$/, ""),
    wsUrl,
    to: values.to,
    coin,
    amount: values.amount,
    wallet,
  });
  console.error(
    `paid ${values.amount} ${coin} from ${result.from} to ${result.to}` +
      (result.tokenAccount ? ` (token account ${result.tokenAccount})` : ""),
  );
  console.log(result.signature);
}

main().then(
  () => process.exit(),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
