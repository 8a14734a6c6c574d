// `gateway doctor`: everything a live deployment depends on, checked from one environment (the
// variables the services read) and told in plain words (docs/going-live.md#gateway-doctor).
import type { Chain } from "@gateway/chains";
import { chainProbes, checkChains } from "./chains.js";
import { readConfigurations } from "./configuration.js";
import type { Finding } from "./finding.js";
import { checkDatabase, checkNats } from "./infrastructure.js";
import { checkPrices, checkProvider } from "./provider-and-prices.js";
import { checkCertificates, checkSolanaWallets, checkSuiWallets, readServiceAddresses } from "./signer.js";

export async function runDoctor(env: Record<string, string | undefined>): Promise<Finding[]> {
  const { configs, findings } = readConfigurations(env);
  const settlement = configs.settlement;
  const [chains, database, nats] = await Promise.all([
    checkChains(chainProbes(configs)),
    checkDatabase(env.DATABASE_URL),
    checkNats(env.NATS_URL),
  ]);
  findings.push(...chains, database, nats);

  if (settlement) {
    findings.push(...checkCertificates(settlement));
    const { book, finding } = await readServiceAddresses(settlement);
    findings.push(finding);
    // Wallet balances mean something only on the network the preflight accepted.
    const chainOk = (chain: Chain) =>
      chains.some((f) => f.topic === chain) && chains.every((f) => f.topic !== chain || f.ok);
    if (book && settlement.SOLANA_RPC_URL && chainOk("solana")) {
      findings.push(
        ...(await checkSolanaWallets(book, settlement.SOLANA_RPC_URL, {
          USDC: settlement.SOLANA_USDC_MINT,
          USDT: settlement.SOLANA_USDT_MINT,
        })),
      );
    }
    if (book && settlement.SUI_GRPC_URL && chainOk("sui")) {
      findings.push(
        ...(await checkSuiWallets(book, { ...settlement, SUI_GRPC_URL: settlement.SUI_GRPC_URL })),
      );
    }
  }
  if (configs["watcher-solana"]) findings.push(await checkProvider(configs["watcher-solana"]));
  const priced = configs.api ?? settlement;
  if (priced) findings.push(...(await checkPrices(priced)));
  return findings;
}
