// Catches what provider webhooks missed: walks this replica's share of the open addresses
// round-robin and asks the chain for their recent signatures, at a fixed number of calls per
// second, so the load on the RPC node does not grow with the number of open addresses (a
// full pass simply takes longer).
import { associatedTokenAddress } from "@gateway/chain-tx";
import type { Logger } from "@gateway/logging";
import {
  type OpenAddress,
  type OpenAddresses,
  type Repeating,
  type ReplicaMembership,
  repeatEvery,
} from "@gateway/watcher-kit";
import { type Connection, PublicKey } from "@solana/web3.js";
import type { SignatureTracker } from "./signature-tracker.js";

export interface Reconciler {
  /** getSignaturesForAddress calls made so far. */
  calls(): number;
  start(): void;
  stop(): Promise<void>;
}

export interface ReconcilerOptions {
  connection: Connection;
  open: OpenAddresses;
  membership: ReplicaMembership;
  tracker: SignatureTracker;
  log: Logger;
  mints: { USDC: string; USDT: string };
  callsPerSecond: number;
  /** Signatures read per address and call. */
  limit?: number;
}

export function createReconciler(options: ReconcilerOptions): Reconciler {
  const { connection, open, membership, tracker, log, mints } = options;
  const limit = options.limit ?? 25;
  const intervalMs = 1000 / options.callsPerSecond;
  let cursor = 0;
  let calls = 0;
  let loop: Repeating | undefined;
  // Token accounts to scan, computed when first needed (curve math is slow); the open set keeps
  // an entry's object while it stays open, so this cache lives exactly as long as the address.
  const scanTargets = new WeakMap<OpenAddress, string>();

  function target(entry: OpenAddress): string {
    // A transfer into an existing token account lists the token account, not its owner.
    if (entry.coin === "SOL") return entry.address;
    let scanTarget = scanTargets.get(entry);
    if (scanTarget === undefined) {
      scanTarget = associatedTokenAddress(entry.address, entry.coin === "USDT" ? mints.USDT : mints.USDC);
      scanTargets.set(entry, scanTarget);
    }
    return scanTarget;
  }

  /** The next address this replica owns, at most one full lap away. */
  function next(): OpenAddress | undefined {
    const list = open.list();
    for (let step = 0; step < list.length; step++) {
      cursor = (cursor + 1) % list.length;
      const entry = list[cursor];
      if (entry && membership.owns(entry.address)) return entry;
    }
    return undefined;
  }

  async function scanOne() {
    const entry = next();
    if (!entry) return;
    calls++;
    const signatures = await connection.getSignaturesForAddress(
      new PublicKey(target(entry)),
      { limit },
      "confirmed",
    );
    for (const { signature } of signatures) tracker.hint(signature);
  }

  return {
    calls: () => calls,
    start() {
      loop = repeatEvery(intervalMs, scanOne, (err) => log.warn({ err }, "reconciliation call failed"));
    },
    async stop() {
      await loop?.stop();
    },
  };
}
