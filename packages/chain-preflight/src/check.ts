import type { Chain } from "@gateway/chains";

/**
 * One preflight check's outcome: which variable it is about (the one to fix when it fails) and
 * what was found, in plain words.
 */
export interface PreflightCheck {
  chain: Chain;
  variable: string;
  ok: boolean;
  detail: string;
}

/** Runs every check of one chain's endpoint once; never throws (an unreachable endpoint is a failed check). */
export interface ChainProbe {
  chain: Chain;
  /** The variable of the endpoint itself (SOLANA_RPC_URL, SUI_GRPC_URL): blamed when it does not answer. */
  endpoint: string;
  run(): Promise<PreflightCheck[]>;
}

/** What every probe is told besides its endpoint, the network's identity and the coins. */
export interface ProbeBasics {
  network: "mainnet" | "localnet";
  /** CHAIN_MAX_LAG_SECONDS in ms: the endpoint's newest block may not be older. */
  maxLagMs: number;
  now?: () => number;
}

/** The service may not start: each failed check names its variable. */
export class PreflightError extends Error {
  override readonly name = "PreflightError";
  constructor(
    readonly faults: PreflightCheck[],
    service: string,
  ) {
    super(
      `${service}: chain preflight failed: ${faults.map((f) => `${f.variable}: ${f.detail}`).join("; ")}`,
    );
  }
}

/** An error's message without a URL's credentials (RPC URLs often carry an API key). */
export function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/([a-z]+:\/\/)[^\s/]*@/gi, "$1***@").replace(/(api[-_]?key=)[^&\s]+/gi, "$1***");
}

/** Seconds, for messages: tenths below ten seconds. */
export function seconds(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
}

/** A check of `chain`'s endpoint or settings, built by each probe. */
export type CheckOf = (variable: string, ok: boolean, detail: string) => PreflightCheck;

export function checksOf(chain: Chain): CheckOf {
  return (variable, ok, detail) => ({ chain, variable, ok, detail });
}

/**
 * Whether the endpoint's newest block (`newest`, e.g. "newest checkpoint (12)") is at most
 * `maxLagMs` (CHAIN_MAX_LAG_SECONDS) old: a stale endpoint would report deposits late.
 */
export function freshnessCheck(
  check: CheckOf,
  endpoint: string,
  newest: string,
  lagMs: number,
  maxLagMs: number,
): PreflightCheck {
  return lagMs <= maxLagMs
    ? check(endpoint, true, `${newest} is ${seconds(lagMs)} old`)
    : check(
        endpoint,
        false,
        `the endpoint is stale: its ${newest} is ${seconds(lagMs)} old, more than CHAIN_MAX_LAG_SECONDS (${seconds(maxLagMs)})`,
      );
}
