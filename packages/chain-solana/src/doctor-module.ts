// Solana in `gateway doctor` (scripts/doctor): the watcher's variables, the chain preflight of the
// endpoint, the service wallets (gas to pay fees, the vault's token accounts) and the webhook
// provider's registration of the watcher's ingress.
import { type ChainDoctorModule, type Finding, fault, pass, plain, whole, within } from "@gateway/chain-kit";
import { type WatcherSolanaConfig, watcherSolanaConfigSchema } from "@gateway/config";
import type { ServiceAddressBook } from "@gateway/signer-client";
import { PublicKey } from "@solana/web3.js";
import { solanaConnection } from "./connection.js";
import { solanaProbeFromConfig } from "./preflight.js";
import { checkWebhookProvider } from "./webhook-provider-check.js";

/** Below this the gas wallet runs dry within days of ordinary traffic (docs/going-live.md). */
const GAS_MINIMUM_LAMPORTS = 50_000_000n;

export const solanaDoctor: ChainDoctorModule<WatcherSolanaConfig> = {
  watcherConfigSchema: watcherSolanaConfigSchema,
  watcherChecks: async (config) => [await checkWebhookProvider(config)],
  probe: (config) =>
    config.SOLANA_RPC_URL
      ? solanaProbeFromConfig({ ...config, SOLANA_RPC_URL: config.SOLANA_RPC_URL })
      : undefined,
  wallets: async (book, settlement) =>
    settlement.SOLANA_RPC_URL
      ? checkSolanaWallets(book, settlement.SOLANA_RPC_URL, {
          USDC: settlement.SOLANA_USDC_MINT,
          USDT: settlement.SOLANA_USDT_MINT,
        })
      : [],
};

async function checkSolanaWallets(
  book: ServiceAddressBook,
  rpcUrl: string,
  mints: { USDC: string; USDT: string },
): Promise<Finding[]> {
  const connection = solanaConnection(rpcUrl, "confirmed");
  const { gas, vault } = book.solana.live;
  const findings: Finding[] = [];
  try {
    const lamports = BigInt(await within(connection.getBalance(new PublicKey(gas)), 10_000, "Solana"));
    const text = `Solana gas wallet ${gas} holds ${whole(lamports, 9)} SOL`;
    findings.push(
      lamports >= GAS_MINIMUM_LAMPORTS
        ? pass("wallets", text)
        : fault("wallets", `${text}: fund it with at least ${whole(GAS_MINIMUM_LAMPORTS, 9)} SOL`),
    );
    for (const coin of ["USDC", "USDT"] as const) {
      const accounts = await within(
        connection.getTokenAccountsByOwner(new PublicKey(vault), { mint: new PublicKey(mints[coin]) }),
        10_000,
        "Solana",
      );
      findings.push(
        accounts.value.length > 0
          ? pass("wallets", `Solana vault ${vault} has its ${coin} token account`)
          : fault(
              "wallets",
              `Solana vault ${vault} has no ${coin} token account: create it once (docs/operations.md)`,
              `SOLANA_${coin}_MINT`,
            ),
      );
    }
  } catch (err) {
    findings.push(fault("wallets", `could not read the Solana wallets: ${plain(err)}`, "SOLANA_RPC_URL"));
  }
  return findings;
}
