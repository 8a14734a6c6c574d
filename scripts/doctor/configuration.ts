// Every service's configuration read from one environment, as each service would read it.
import type { ChainDoctorModule } from "@gateway/chain-kit";
import {
  type ApiConfig,
  apiConfigSchema,
  ConfigError,
  type NotifierConfig,
  notifierConfigSchema,
  parseConfig,
  type SettlementConfig,
  settlementConfigSchema,
} from "@gateway/config";
import { CHAINS, type Chain } from "@gateway/contracts";
import type { WatcherServiceConfig } from "@gateway/watcher-kit";
import { type Finding, fault, pass } from "./finding.js";

export interface Configs {
  api?: ApiConfig;
  settlement?: SettlementConfig;
  notifier?: NotifierConfig;
  /** Each chain's watcher (the service `watcher-<chain>`), read with its chain package's schema. */
  watchers: Partial<Record<Chain, WatcherServiceConfig>>;
}

/** Each service's parsed configuration (left out when it does not parse), and a finding per problem. */
export function readConfigurations(
  env: Record<string, string | undefined>,
  doctors: Readonly<Record<Chain, ChainDoctorModule>>,
): {
  configs: Configs;
  findings: Finding[];
} {
  type Schema = Parameters<typeof parseConfig>[1];
  const schemas: [string, Schema][] = [
    ["api", apiConfigSchema],
    ["settlement", settlementConfigSchema],
    ["notifier", notifierConfigSchema],
    ...CHAINS.map((chain): [string, Schema] => [`watcher-${chain}`, doctors[chain].watcherConfigSchema]),
  ];
  const configs: Record<string, unknown> = {};
  // The same problem in several services is one line naming them all.
  const problems = new Map<string, { variable: string; problem: string; services: string[] }>();
  for (const [service, schema] of schemas) {
    try {
      configs[service] = parseConfig(service, schema, env);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      for (const issue of err.issues) {
        const key = `${issue.variable}\n${issue.problem}`;
        const entry = problems.get(key) ?? { ...issue, services: [] };
        entry.services.push(service);
        problems.set(key, entry);
      }
    }
  }
  const findings: Finding[] = [...problems.values()].map((p) =>
    fault("configuration", `${p.problem} (${p.services.join(", ")})`, p.variable),
  );
  const good = Object.keys(configs);
  if (good.length) findings.unshift(pass("configuration", `${good.join(", ")}: every variable is valid`));
  const watchers: Configs["watchers"] = {};
  for (const chain of CHAINS)
    watchers[chain] = configs[`watcher-${chain}`] as WatcherServiceConfig | undefined;
  const { api, settlement, notifier } = configs as Omit<Configs, "watchers">;
  return { configs: { api, settlement, notifier, watchers }, findings };
}
