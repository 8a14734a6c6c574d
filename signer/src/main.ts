// Wires config → dependencies → start, and stops in reverse order on SIGTERM/SIGINT.
import { pino } from "pino";
import { ConfigError, parseSignerConfig, scrubSecrets } from "./config.js";
import { countDecisions } from "./decision-metrics.js";
import { watchFullCollections } from "./full-collections.js";
import { createHealthServer } from "./health.js";
import { createKeyring } from "./keys/keyring.js";
import { createSignerCoreWithRules, openSignerState, signerLimits } from "./open-state.js";
import { createPolicyRules } from "./policy/index.js";
import { loadSeed } from "./seed.js";
import { createSignerServer } from "./server.js";
import { checkTlsMaterial } from "./tls-check.js";

// A start-up failure (seed, lock, TLS files) must say why, even before the logger exists.
process.on("uncaughtException", (error) => {
  process.stderr.write(`signer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

/** A configuration problem found at start stops the process with 78, naming the variable. */
function orExit78<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
}

const config = orExit78(() => parseSignerConfig(process.env));
scrubSecrets(process.env);
orExit78(() => checkTlsMaterial(config));

const log = pino({ name: "signer", level: config.logLevel });
const keyring = createKeyring({ seed: orExit78(() => loadSeed(config.seed)) });
// The newest checkpoint and the chain after it are verified and replayed here; a break stops the start.
const rules = createPolicyRules(config);
const state = openSignerState(
  config.auditLog,
  { caps: config.caps, gasBudgets: config.gasBudgets, maxSweepsPerDeposit: config.maxSweepsPerDeposit },
  undefined,
  rules,
  config.checkpoints,
);
const { ledger, audit, issued } = state;
log.info({ auditHead: audit.head() }, "audit chain verified");
// Checked between decisions (the process is single-threaded), so a checkpoint never splits one.
const checkpointTimer = setInterval(() => {
  try {
    if (state.checkpointIfDue())
      log.info({ auditHead: audit.head(), ...ledger.size() }, "checkpoint written");
  } catch (error) {
    log.error({ err: error }, "checkpoint failed; the signer stops rather than write past it");
    process.exit(1);
  }
}, 1_000).unref();
const core = createSignerCoreWithRules(
  { keyring, ledger, audit, issued, limits: signerLimits(config), log },
  config.trustedApprovers,
  rules,
);
const decisions = countDecisions(core, ledger, watchFullCollections());
const server = createSignerServer({
  core: decisions.core,
  audit,
  host: config.host,
  port: config.port,
  tls: config.tls,
  production: config.env !== "development",
  log,
});
if (!config.tls) log.warn("plaintext gRPC (development): every caller may act as every role");

// A new CRL (or renewed certificates) takes effect on SIGHUP and at the reload interval.
function reloadTls(reason: string) {
  try {
    if (server.reloadTls()) log.info({ reason }, "TLS material reloaded");
  } catch (error) {
    log.error({ err: error, reason }, "TLS reload failed; keeping the previous material");
  }
}
process.on("SIGHUP", () => reloadTls("SIGHUP"));
const reloadTimer =
  config.tls && config.tlsReloadSeconds > 0
    ? setInterval(() => reloadTls("interval"), config.tlsReloadSeconds * 1000).unref()
    : undefined;
const health = createHealthServer({
  port: config.healthPort,
  host: config.healthHost,
  ready: () => server.listening,
  metrics: decisions.text,
});

await health.start();
const { port } = await server.start();
log.info(
  { port, healthPort: config.healthPort, tls: config.tls !== undefined, env: config.env },
  "signer listening",
);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "signer stopping");
  clearInterval(reloadTimer);
  clearInterval(checkpointTimer);
  await server.stop();
  await core.sync();
  audit.close();
  await health.stop();
  process.exit(0);
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
