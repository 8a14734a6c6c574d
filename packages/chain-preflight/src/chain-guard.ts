// Runs the chain probes at start (a fault refuses the start) and again every interval. While a
// chain's last run failed, `crediting(chain)` is false: watchers hold their final reports and
// settlement sends nothing on it; both resume by themselves once a run passes again.
import type { Chain } from "@gateway/chains";
import type { Logger } from "@gateway/logging";
import { gaugeIn, type Registry } from "@gateway/metrics";
import { type ChainProbe, type PreflightCheck, PreflightError, seconds } from "./check.js";

export interface ChainGuardOptions {
  service: string;
  probes: readonly ChainProbe[];
  /** CHAIN_PREFLIGHT_INTERVAL_MS. While a chain is failing it is checked every `retryMs` instead. */
  intervalMs: number;
  retryMs?: number;
  /** A probe that has not finished by then counts as an endpoint that does not answer (default 10 s). */
  timeoutMs?: number;
  log: Logger;
  metrics?: Registry;
}

export interface ChainGuard {
  /** False while the chain's last preflight failed: nothing may be credited or sent on it. */
  crediting(chain: Chain): boolean;
  /** The last result of every check. */
  results(): PreflightCheck[];
  /** For /readyz: rejects while any chain fails its preflight. */
  ready(): Promise<void>;
  /** Runs every probe now (the periodic run calls this). */
  checkNow(): Promise<PreflightCheck[]>;
  stop(): void;
}

/** The probe's results, or its endpoint blamed when it hangs (a stopped node answers nothing, not an error). */
function probeWithin(probe: ChainProbe, ms: number): Promise<PreflightCheck[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<PreflightCheck[]>((resolve) => {
    timer = setTimeout(
      () =>
        resolve([
          {
            chain: probe.chain,
            variable: probe.endpoint,
            ok: false,
            detail: `the endpoint did not answer within ${seconds(ms)}`,
          },
        ]),
      ms,
    );
  });
  return Promise.race([probe.run(), late]).finally(() => clearTimeout(timer));
}

function preflightGauges(metrics: Registry | undefined) {
  return {
    ok: gaugeIn(metrics, {
      name: "gateway_chain_preflight_ok",
      help: "1 when the chain preflight check passed on its last run, 0 when it failed (the variable to fix)",
      labelNames: ["chain", "variable"],
    }),
    crediting: gaugeIn(metrics, {
      name: "gateway_chain_crediting",
      help: "1 while the service credits and sends on the chain, 0 while its preflight fails",
      labelNames: ["chain"],
    }),
  };
}

function logRun(log: Logger, chain: Chain, faults: PreflightCheck[], wasFailing: boolean) {
  for (const f of faults) {
    log.error(
      { chain: f.chain, variable: f.variable, detail: f.detail },
      "chain preflight failed: crediting stopped",
    );
  }
  if (!faults.length && wasFailing) log.warn({ chain }, "chain preflight passed again: crediting resumed");
}

/** Starts the guard once every probe passed; throws PreflightError naming each failing variable otherwise. */
export async function startChainGuard(options: ChainGuardOptions): Promise<ChainGuard> {
  const { log, probes } = options;
  const retryMs = Math.min(options.retryMs ?? 5_000, options.intervalMs);
  const last = new Map<Chain, PreflightCheck[]>();
  const failing = new Set<Chain>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const gauges = preflightGauges(options.metrics);

  async function runProbe(probe: ChainProbe): Promise<PreflightCheck[]> {
    const results = await probeWithin(probe, options.timeoutMs ?? 10_000);
    const faults = results.filter((r) => !r.ok);
    const wasFailing = failing.has(probe.chain);
    // A run that stopped early (another network) leaves no stale "passed" for the checks it skipped.
    for (const before of last.get(probe.chain) ?? []) {
      if (!results.some((r) => r.variable === before.variable))
        gauges.ok?.remove({ chain: before.chain, variable: before.variable });
    }
    last.set(probe.chain, results);
    for (const r of results) gauges.ok?.set({ chain: r.chain, variable: r.variable }, r.ok ? 1 : 0);
    gauges.crediting?.set({ chain: probe.chain }, faults.length ? 0 : 1);
    if (faults.length) failing.add(probe.chain);
    else failing.delete(probe.chain);
    logRun(log, probe.chain, faults, wasFailing);
    return results;
  }

  async function checkNow() {
    return (await Promise.all(probes.map(runProbe))).flat();
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(
      () => {
        checkNow()
          .catch((err) => log.error({ err }, "chain preflight run failed"))
          .finally(schedule);
      },
      failing.size ? retryMs : options.intervalMs,
    );
  }

  const first = await checkNow();
  const faults = first.filter((r) => !r.ok);
  if (faults.length) throw new PreflightError(faults, options.service);
  for (const r of first)
    log.info({ chain: r.chain, variable: r.variable, detail: r.detail }, "chain preflight passed");
  schedule();

  return {
    crediting: (chain) => !failing.has(chain),
    results: () => [...last.values()].flat(),
    async ready() {
      if (failing.size) {
        throw new Error(`chain preflight failing: ${[...failing].join(", ")}`);
      }
    },
    checkNow,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** For entrypoints: the guard, or the faults printed (each naming its variable) and exit 78, as a bad configuration does. */
export async function startChainGuardOrExit(options: ChainGuardOptions): Promise<ChainGuard> {
  try {
    return await startChainGuard(options);
  } catch (err) {
    if (err instanceof PreflightError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}
