// What a deployment runs of each chain, from the chain's configuration (@gateway/config's
// chain-configs.ts): the manifests and the compose file name no chain's variable or port.
import { CHAIN_CONFIGS, type ChainConfig } from "@gateway/config";
import { CHAINS, type Chain } from "@gateway/contracts";
import { safeParse } from "zod";

export interface ChainSecret {
  name: string;
  /** The field is optional (no default): the service runs without it, with that feature off. */
  optional: boolean;
}

function secretsIn(chain: Chain, fields: ChainConfig["watcher"] | ChainConfig["settlement"]): ChainSecret[] {
  const config: ChainConfig = CHAIN_CONFIGS[chain];
  return config.secrets.flatMap((name) => {
    const field = fields[name];
    if (!field) return [];
    const unset = safeParse(field, undefined);
    return [{ name, optional: unset.success && unset.data === undefined }];
  });
}

/** A chain's watcher: its health port (the watcher's default HEALTH_PORT) and the secrets it reads. */
export function chainWatcher(chain: Chain): { port: number; secrets: ChainSecret[] } {
  const { watcher } = CHAIN_CONFIGS[chain];
  return { port: watcher.HEALTH_PORT.parse(undefined), secrets: secretsIn(chain, watcher) };
}

/** Every chain's secrets settlement reads (its endpoints). */
export function settlementChainSecrets(): ChainSecret[] {
  return CHAINS.flatMap((chain) => secretsIn(chain, CHAIN_CONFIGS[chain].settlement));
}
