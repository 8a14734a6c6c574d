// The Solana watcher: webhook hints and reconciliation scans feed one signature tracker,
// which publishes deposit reports for open live addresses to `<p>.cmd.deposit.solana`.
import type { Bus } from "@gateway/bus";
import type { Coin } from "@gateway/domain";
import { chainGauge, OPEN_ADDRESSES_GAUGE, type Registry } from "@gateway/metrics";
import {
  createOpenAddresses,
  createReplicaMembership,
  type OpenAddresses,
  type ReplicaMembership,
  type WatcherBasics,
} from "@gateway/watcher-kit";
import type { Connection } from "@solana/web3.js";
import type { AddressRegistry } from "./address-registry.js";
import { depositReporter } from "./deposit-reports.js";
import type { DepositLookup } from "./deposits-in-transaction.js";
import { ProviderRegistration } from "./provider-registration.js";
import { createReconciler, type Reconciler } from "./reconciler.js";
import { createSignatureTracker, type SignatureTracker } from "./signature-tracker.js";
import { startWebhookIngress } from "./webhook-ingress.js";

export interface SolanaWatcherOptions extends WatcherBasics {
  bus: Bus;
  connection: Connection;
  mints: { USDC: string; USDT: string };
  replicaId: string;
  ingress: { host?: string; port: number; authHeader: string };
  /** Provider registration; omitted when the provider is configured by hand. */
  registry?: AddressRegistry;
  reconcileCallsPerSecond: number;
  /** Signature status polling; a few slots. */
  pollMs?: number;
  /**
   * The open set's poll and the leader's registration check (1 s). The safety net only: a new
   * wallet is loaded and registered as soon as PostgreSQL notifies it.
   */
  openRefreshMs?: number;
  lateWindowMs?: number;
  /** Hints the chain does not know after this long are forgotten. */
  giveUpMs?: number;
  /** Where the watcher's metrics go (deposits reported, open addresses, followed signatures). */
  metrics?: Registry;
}

export interface SolanaWatcher {
  ingressPort: number;
  open: OpenAddresses;
  tracker: SignatureTracker;
  reconciler: Reconciler;
  membership: ReplicaMembership;
  stop(): Promise<void>;
}

export async function startSolanaWatcher(options: SolanaWatcherOptions): Promise<SolanaWatcher> {
  const { sql, log, connection, mints } = options;
  const heartbeatMs = options.heartbeatMs ?? 2000;
  const open = createOpenAddresses({
    sql,
    chain: "solana",
    lateWindowMs: options.lateWindowMs ?? 24 * 3600_000,
    fullReloadMs: 30_000,
    refreshMs: options.openRefreshMs ?? 1000,
    log,
  });
  await open.refresh();

  const tracker = createSignatureTracker({
    connection,
    log,
    publish: depositReporter(options),
    lookup: depositLookup(open, mints),
    pollMs: options.pollMs ?? 100,
    giveUpMs: options.giveUpMs ?? 120_000,
    ...(options.crediting ? { crediting: options.crediting } : {}),
  });
  const membership = createReplicaMembership({
    sql,
    log,
    chain: "solana",
    replicaId: options.replicaId,
    heartbeatMs,
    ttlMs: heartbeatMs * 3,
  });
  await membership.start();
  const reconciler = createReconciler({
    connection,
    open,
    membership,
    tracker,
    log,
    mints,
    callsPerSecond: options.reconcileCallsPerSecond,
  });
  const ingress = await startWebhookIngress({
    ...options.ingress,
    log,
    isOpen: (address) => open.get(address) !== undefined,
    hint: (signature) => tracker.hint(signature),
  });
  const registration = await startRegistration(options, open, membership, heartbeatMs);

  if (options.metrics) watcherGauges(options.metrics, open, tracker);
  open.start();
  tracker.start();
  reconciler.start();
  log.info({ replicaId: options.replicaId, open: open.size(), port: ingress.port }, "solana watcher started");

  return {
    ingressPort: ingress.port,
    open,
    tracker,
    reconciler,
    membership,
    async stop() {
      await ingress.close();
      await registration?.stop();
      await reconciler.stop();
      await tracker.stop();
      await open.stop();
      await membership.stop();
    },
  };
}

function watcherGauges(metrics: Registry, open: OpenAddresses, tracker: SignatureTracker) {
  chainGauge(metrics, "solana", OPEN_ADDRESSES_GAUGE, () => open.size());
  // Signatures seen but not final yet: how far behind finality the watcher is holding work.
  chainGauge(
    metrics,
    "solana",
    { name: "gateway_watcher_pending_transfers", help: "Transfers followed until finality" },
    () => tracker.tracked(),
  );
}

function depositLookup(open: OpenAddresses, mints: SolanaWatcherOptions["mints"]): DepositLookup {
  const coinOfMint = new Map<string, Coin>([
    [mints.USDC, "USDC"],
    [mints.USDT, "USDT"],
  ]);
  return { watched: (address) => open.get(address), coinOfMint: (mint) => coinOfMint.get(mint) };
}

/** The provider's registration, when one is configured; the leader's to keep. */
async function startRegistration(
  options: SolanaWatcherOptions,
  open: OpenAddresses,
  membership: ReplicaMembership,
  heartbeatMs: number,
): Promise<ProviderRegistration | undefined> {
  if (!options.registry) return undefined;
  const registration = new ProviderRegistration({
    registry: options.registry,
    open,
    membership,
    log: options.log,
    heartbeatMs,
    refreshMs: options.openRefreshMs ?? 1000,
  });
  await registration.start();
  return registration;
}
