// The Solana watcher: webhook hints and reconciliation scans feed one signature tracker,
// which publishes deposit reports for open live addresses to `<p>.cmd.deposit.solana`.
import { type Bus, busEpochReader, publishWithId } from "@gateway/bus";
import { type DepositReport, depositMessageId } from "@gateway/contracts";
import type { Coin } from "@gateway/domain";
import { chainGauge, counterIn, OPEN_ADDRESSES_GAUGE, type Registry } from "@gateway/metrics";
import { signAttestation } from "@gateway/signer-client";
import {
  coalesce,
  createOpenAddresses,
  createReplicaMembership,
  type OpenAddresses,
  type Repeating,
  type ReplicaMembership,
  repeatEvery,
  type WatcherBasics,
} from "@gateway/watcher-kit";
import type { Connection } from "@solana/web3.js";
import type { AddressRegistry } from "./address-registry.js";
import type { FoundDeposit } from "./deposits-in-transaction.js";
import { createReconciler, type Reconciler } from "./reconciler.js";
import { createSignatureTracker, type DepositStage, type SignatureTracker } from "./signature-tracker.js";
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
  const { sql, bus, log, connection, mints } = options;
  const heartbeatMs = options.heartbeatMs ?? 2000;
  const coinOfMint = new Map<string, Coin>([
    [mints.USDC, "USDC"],
    [mints.USDT, "USDT"],
  ]);
  const open = createOpenAddresses({
    sql,
    chain: "solana",
    lateWindowMs: options.lateWindowMs ?? 24 * 3600_000,
    fullReloadMs: 30_000,
    refreshMs: options.openRefreshMs ?? 1000,
    log,
  });
  await open.refresh();

  const subject = bus.topology.subjects.deposit("solana");
  const busEpoch = busEpochReader(sql);
  const reported = counterIn(options.metrics, {
    name: "gateway_deposits_detected_total",
    help: "Deposit reports published, by stage",
    labelNames: ["chain", "stage"],
  });
  async function publish(deposit: FoundDeposit, signature: string, stage: DepositStage) {
    const report: DepositReport = {
      chain: "solana",
      address: deposit.address,
      transfer_id: `solana:${signature}:${deposit.instructionIndex}`,
      coin: deposit.coin,
      amount: deposit.amount.toString(),
      sender: deposit.sender,
      stage,
    };
    if (stage === "final" && options.attestor) {
      report.attestation = signAttestation(
        {
          chain: "solana",
          mode: "live",
          asset: deposit.coin === "SOL" ? "SOL" : mints[deposit.coin as "USDC" | "USDT"],
          transferId: report.transfer_id,
          depositAddress: report.address,
          sender: report.sender,
          amount: deposit.amount,
        },
        options.attestor,
      );
    }
    await publishWithId(bus.js, subject, report, depositMessageId(report), await busEpoch());
    reported?.inc({ chain: "solana", stage });
    log.info({ address: deposit.address, signature, stage, amount: report.amount }, "deposit reported");
  }

  const tracker = createSignatureTracker({
    connection,
    log,
    publish,
    lookup: { watched: (address) => open.get(address), coinOfMint: (mint) => coinOfMint.get(mint) },
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

  // The leader keeps the provider's list equal to the open set, syncing as soon as it changes,
  // coalesced so two edits never race; a new leader syncs once more after the old one's last edit
  // can have landed (docs/design-notes.md, "Provider registration on Solana").
  const takeoverSettleMs = heartbeatMs * 3 * 2;
  let registered = -1;
  // Set by the timer, not read off the clock: a timer may fire a millisecond before Date.now()
  // says it is due.
  let confirmDue = false;
  let confirmTimer: NodeJS.Timeout | undefined;
  let registering: Repeating | undefined;
  let unsubscribe: (() => void) | undefined;
  const registry = options.registry;
  const registration = coalesce(async () => {
    if (!registry) return;
    if (!membership.isLeader()) {
      // Whatever another leader registered meanwhile, sync in full on becoming leader again.
      registered = -1;
      confirmDue = false;
      clearTimeout(confirmTimer);
      return;
    }
    const version = open.version();
    const confirming = confirmDue;
    if (version === registered && !confirming) return;
    const tookOver = registered === -1;
    await registry.sync(open.list().map((entry) => entry.address));
    registered = version;
    // Cleared once done: a confirming sync that failed is tried again by the periodic check.
    if (confirming) confirmDue = false;
    if (tookOver) {
      // Not left to the periodic check, which may be far apart (`openRefreshMs`).
      clearTimeout(confirmTimer);
      confirmTimer = setTimeout(() => {
        confirmDue = true;
        registration.run().catch(failed);
      }, takeoverSettleMs);
    }
  });
  const failed = (err: unknown) => log.warn({ err }, "provider registration failed; retried");
  if (registry) {
    await registration.run().catch(failed);
    unsubscribe = open.onChange(() => {
      registration.run().catch(failed);
    });
    registering = repeatEvery(options.openRefreshMs ?? 1000, () => registration.run(), failed);
  }

  if (options.metrics) {
    chainGauge(options.metrics, "solana", OPEN_ADDRESSES_GAUGE, () => open.size());
    // Signatures seen but not final yet: how far behind finality the watcher is holding work.
    chainGauge(
      options.metrics,
      "solana",
      { name: "gateway_watcher_pending_transfers", help: "Transfers followed until finality" },
      () => tracker.tracked(),
    );
  }
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
      unsubscribe?.();
      clearTimeout(confirmTimer);
      await registering?.stop();
      await registration.idle();
      await reconciler.stop();
      await tracker.stop();
      await open.stop();
      await membership.stop();
    },
  };
}
