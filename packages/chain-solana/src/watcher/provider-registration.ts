// The leader keeps the webhook provider's address list equal to the open set.
import type { Logger } from "@gateway/logging";
import {
  type Coalesced,
  coalesce,
  type OpenAddresses,
  type Repeating,
  type ReplicaMembership,
  repeatEvery,
} from "@gateway/watcher-kit";
import type { AddressRegistry } from "./address-registry.js";

export interface ProviderRegistrationOptions {
  registry: AddressRegistry;
  open: OpenAddresses;
  membership: ReplicaMembership;
  log: Logger;
  heartbeatMs: number;
  /** The leader's periodic check. */
  refreshMs: number;
}

/**
 * Syncs at once on every change, coalesced so edits never overlap (each replaces the whole list),
 * and once more a while after a takeover, in case the old leader's last edit lands late
 * (docs/design-notes.md, "Provider registration on Solana").
 */
export class ProviderRegistration {
  readonly #o: ProviderRegistrationOptions;
  readonly #takeoverSettleMs: number;
  readonly #sync: Coalesced = coalesce(() => this.#syncOnce());
  /** The open set's version last registered; -1 when another leader may have registered since. */
  #registered = -1;
  // Set by the timer, not read off the clock: a timer may fire a millisecond before Date.now()
  // says it is due.
  #confirmDue = false;
  #confirmTimer: NodeJS.Timeout | undefined;
  #registering: Repeating | undefined;
  #unsubscribe: (() => void) | undefined;
  readonly #failed = (err: unknown) => this.#o.log.warn({ err }, "provider registration failed; retried");

  constructor(options: ProviderRegistrationOptions) {
    this.#o = options;
    // Two lease lengths: the old leader learns it lost the lease only at its next heartbeat.
    this.#takeoverSettleMs = options.heartbeatMs * 3 * 2;
  }

  async start(): Promise<void> {
    await this.#sync.run().catch(this.#failed);
    this.#unsubscribe = this.#o.open.onChange(() => {
      this.#sync.run().catch(this.#failed);
    });
    this.#registering = repeatEvery(this.#o.refreshMs, () => this.#sync.run(), this.#failed);
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    clearTimeout(this.#confirmTimer);
    await this.#registering?.stop();
    await this.#sync.idle();
  }

  async #syncOnce(): Promise<void> {
    const { open, membership, registry } = this.#o;
    if (!membership.isLeader()) {
      // Whatever another leader registered meanwhile, sync in full on becoming leader again.
      this.#registered = -1;
      this.#confirmDue = false;
      clearTimeout(this.#confirmTimer);
      return;
    }
    const version = open.version();
    const confirming = this.#confirmDue;
    if (version === this.#registered && !confirming) return;
    const tookOver = this.#registered === -1;
    await registry.sync(open.list().map((entry) => entry.address));
    this.#registered = version;
    // Cleared once done: a confirming sync that failed is tried again by the periodic check.
    if (confirming) this.#confirmDue = false;
    // Not left to the periodic check, which may be far apart (`refreshMs`).
    if (tookOver) this.#confirmLater();
  }

  #confirmLater(): void {
    clearTimeout(this.#confirmTimer);
    this.#confirmTimer = setTimeout(() => {
      this.#confirmDue = true;
      this.#sync.run().catch(this.#failed);
    }, this.#takeoverSettleMs);
  }
}
