import { type Chain, chainModule } from "@gateway/chains";

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
  /** The declared network's identity: a genesis hash (Solana), a chain identifier (Sui). */
  networkId: string;
  /** CHAIN_MAX_LAG_SECONDS in ms: the endpoint's newest block may not be older. */
  maxLagMs: number;
  now?: () => number;
}

/**
 * What every probe takes from a service's configuration (each chain's package builds its probe
 * from the same values and variables the service uses): the declared network, its identity
 * (mainnet's unless declared: the configuration refuses a localnet without one, packages/config)
 * and the lag allowed.
 */
export function probeBasics(
  chain: Chain,
  network: ProbeBasics["network"],
  networkId: string | undefined,
  config: { CHAIN_MAX_LAG_SECONDS: number },
): ProbeBasics {
  return {
    network,
    networkId: networkId ?? chainModule(chain).mainnet.networkId,
    maxLagMs: config.CHAIN_MAX_LAG_SECONDS * 1000,
  };
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

/** What one chain's probe says at each step of the course every probe follows (`chainProbe`). */
export interface ProbeCourse<Identity> extends ProbeBasics {
  chain: Chain;
  /** The endpoint's variable: SOLANA_RPC_URL, SUI_GRPC_URL. */
  endpoint: string;
  /** The variable that declares the network (SOLANA_GENESIS_HASH, SUI_CHAIN_ID): blamed for another network. */
  declaredBy: string;
  /** The chain's name in messages ("Solana", "Sui"). */
  name: string;
  /** The endpoint's first answer: which network it is. */
  identify(): Promise<Identity>;
  /** The identity as messages show it: `same` when it is the declared network, else `other`. */
  compare(identity: Identity): { same: string } | { other: string };
  /** The endpoint's newest block and its age, or why it has none (a failure of the endpoint). */
  newest(identity: Identity, now: () => number): Promise<{ newest: string; lagMs: number } | string>;
  /** The check of one coin's configured mint or type. */
  coin(symbol: "USDC" | "USDT", check: CheckOf): Promise<PreflightCheck>;
}

/**
 * The course of every probe: no identity is a silent endpoint; another network ends the probe
 * (nothing else it says is worth checking); then its newest block's age and both coins, where a
 * failed read fails the endpoint.
 */
export function chainProbe<Identity>(course: ProbeCourse<Identity>): ChainProbe {
  const { chain, endpoint, declaredBy } = course;
  const check = checksOf(chain);
  return {
    chain,
    endpoint,
    async run() {
      let identity: Identity;
      try {
        identity = await course.identify();
      } catch (err) {
        return [check(endpoint, false, `the endpoint did not answer: ${reason(err)}`)];
      }
      const network = course.network === "mainnet" ? `${course.name} mainnet` : "the declared local network";
      const seen = course.compare(identity);
      if ("other" in seen) {
        const detail = `${endpoint} is another network: ${seen.other}, not ${course.networkId} (${network})`;
        return [check(declaredBy, false, detail)];
      }
      const results = [check(declaredBy, true, `${endpoint} is ${network} (${seen.same})`)];
      try {
        const age = await course.newest(identity, course.now ?? Date.now);
        results.push(
          typeof age === "string"
            ? check(endpoint, false, age)
            : freshnessCheck(check, endpoint, age.newest, age.lagMs, course.maxLagMs),
        );
        results.push(await course.coin("USDC", check), await course.coin("USDT", check));
      } catch (err) {
        results.push(check(endpoint, false, `the endpoint failed a read: ${reason(err)}`));
      }
      return results;
    },
  };
}
