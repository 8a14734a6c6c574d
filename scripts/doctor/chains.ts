// The chain preflight, as the watchers and settlement run it, from their configurations.
import {
  type ChainProbe,
  type PreflightCheck,
  solanaProbeFromConfig,
  suiProbeFromConfig,
} from "@gateway/chain-preflight";
import type { Configs } from "./configuration.js";
import { type Finding, fault, pass, within } from "./finding.js";

/** The probes of the chains some service talks to (the watcher's configuration first, then settlement's). */
export function chainProbes(configs: Configs): ChainProbe[] {
  const probes: ChainProbe[] = [];
  const solana = configs["watcher-solana"] ?? configs.settlement;
  if (solana?.SOLANA_RPC_URL)
    probes.push(solanaProbeFromConfig({ ...solana, SOLANA_RPC_URL: solana.SOLANA_RPC_URL }));
  const sui = configs["watcher-sui"] ?? configs.settlement;
  if (sui?.SUI_GRPC_URL) probes.push(suiProbeFromConfig({ ...sui, SUI_GRPC_URL: sui.SUI_GRPC_URL }));
  return probes;
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
