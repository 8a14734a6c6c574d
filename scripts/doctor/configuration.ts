// Every service's configuration read from one environment, as each service would read it.
import {
  type ApiConfig,
  apiConfigSchema,
  ConfigError,
  type NotifierConfig,
  notifierConfigSchema,
  parseConfig,
  type SettlementConfig,
  settlementConfigSchema,
  type WatcherSolanaConfig,
  type WatcherSuiConfig,
  watcherSolanaConfigSchema,
  watcherSuiConfigSchema,
} from "@gateway/config";
import { type Finding, fault, pass } from "./finding.js";

export const SCHEMAS = {
  api: apiConfigSchema,
  settlement: settlementConfigSchema,
  notifier: notifierConfigSchema,
  "watcher-solana": watcherSolanaConfigSchema,
  "watcher-sui": watcherSuiConfigSchema,
} as const;
export type ServiceName = keyof typeof SCHEMAS;
export interface Configs {
  api?: ApiConfig;
  settlement?: SettlementConfig;
  notifier?: NotifierConfig;
  "watcher-solana"?: WatcherSolanaConfig;
  "watcher-sui"?: WatcherSuiConfig;
}

/** Each service's parsed configuration (left out when it does not parse), and a finding per problem. */
export function readConfigurations(env: Record<string, string | undefined>): {
  configs: Configs;
  findings: Finding[];
} {
  const configs: Record<string, unknown> = {};
  // The same problem in several services is one line naming them all.
  const problems = new Map<string, { variable: string; problem: string; services: string[] }>();
  for (const [service, schema] of Object.entries(SCHEMAS)) {
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
  return { configs: configs as Configs, findings };
}
