// `gateway doctor`: everything a live deployment depends on, checked from one environment (the
// variables the services read) and told in plain words (docs/going-live.md#gateway-doctor).
import { loadEveryChain } from "@gateway/chain-packages";
import { CHAINS, type Chain } from "@gateway/chains";
import { chainProbes, checkChains } from "./chains.js";
import { readConfigurations } from "./configuration.js";
import type { Finding } from "./finding.js";
import { checkDatabase, checkNats } from "./infrastructure.js";
import { checkPrices } from "./prices.js";
import { checkCertificates, readServiceAddresses } from "./signer.js";

export async function runDoctor(env: Record<string, string | undefined>): Promise<Finding[]> {
  // Each chain's checks are its package's: the watcher's schema, the probe, the wallets.
  const doctors = await loadEveryChain("doctor");
  const { configs, findings } = readConfigurations(env, doctors);
  const settlement = configs.settlement;
  const [chains, database, nats] = await Promise.all([
    checkChains(chainProbes(configs, doctors)),
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
    for (const chain of CHAINS) {
      if (book && chainOk(chain)) findings.push(...(await doctors[chain].wallets(book, settlement)));
    }
  }
  for (const chain of CHAINS) {
    const watcher = configs.watchers[chain];
    if (watcher && doctors[chain].watcherChecks)
      findings.push(...(await doctors[chain].watcherChecks(watcher)));
  }
  const priced = configs.api ?? settlement;
  if (priced) findings.push(...(await checkPrices(priced)));
  return findings;
}
