// The chain preflight, as the watchers and settlement run it, from their configurations: each
// chain's probe is its package's (packages/chain-packages).
import type { ChainDoctorModule } from "@gateway/chain-kit";
import type { ChainProbe, PreflightCheck } from "@gateway/chain-preflight";
import { CHAINS, type Chain } from "@gateway/contracts";
import type { Configs } from "./configuration.js";
import { type Finding, fault, pass, within } from "./finding.js";

/** The probes of the chains some service talks to (the watcher's configuration first, then settlement's). */
export function chainProbes(
  configs: Configs,
  doctors: Readonly<Record<Chain, ChainDoctorModule>>,
): ChainProbe[] {
  return CHAINS.flatMap((chain) => {
    const config = configs.watchers[chain] ?? configs.settlement;
    const probe = config && doctors[chain].probe(config);
    return probe ? [probe] : [];
  });
}

const asFinding = (check: PreflightCheck): Finding =>
  check.ok
    ? pass(check.chain, check.detail, check.variable)
    : fault(check.chain, check.detail, check.variable);

export async function checkChains(probes: readonly ChainProbe[]): Promise<Finding[]> {
  const results = await Promise.all(
    probes.map((probe) =>
      within(probe.run(), 15_000, `${probe.chain} endpoint`).catch((err: unknown): PreflightCheck[] => [
        {
          chain: probe.chain,
          variable: probe.endpoint,
          ok: false,
          detail: String(err instanceof Error ? err.message : err),
        },
      ]),
    ),
  );
  return results.flat().map(asFinding);
}
