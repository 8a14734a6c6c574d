import type { KeyObject } from "node:crypto";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";

/** What every chain's watcher is given besides its bus, its chain's client and its coins. */
export interface WatcherBasics {
  sql: Sql;
  log: Logger;
  heartbeatMs?: number;
  /**
   * The watcher's attestation key: final reports carry its signature over the transfer, and the
   * signer refunds only what a watcher attested (never on settlement's word alone).
   */
  attestor?: { keyId: string; key: KeyObject };
  /** False while the chain preflight fails (packages/chain-preflight): no deposit is reported until it passes again. */
  crediting?: () => boolean;
}
