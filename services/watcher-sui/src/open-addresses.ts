import type { Sql } from "@gateway/db";
import { partitionOf } from "./partitions.js";

export interface OpenAddressesOptions {
  sql: Sql;
  /** Addresses of payments that expired this long ago are still watched, for late transfers. */
  lateGraceMs: number;
  /** A full reload drops addresses that closed; in between only new ones are added. */
  fullReloadMs: number;
}

export interface OpenAddresses {
  /** The partition of an open address, or undefined when it is not open. */
  partition(address: string): number | undefined;
  readonly size: number;
  /** Database time of the last load's snapshot: every wallet created before it is known. */
  readonly asOf: number;
  refresh(): Promise<void>;
}

/** Overlap of incremental loads: a wallet row can commit a little after its created_at. */
const OVERLAP_MS = 2_000;

/**
 * The open live Sui deposit addresses, held in memory: the active wallets of payments that are
 * pending or confirming, or expired no longer ago than the grace. Loaded incrementally by
 * creation time (one indexed query however many addresses are open), fully now and then.
 */
export function createOpenAddresses({ sql, lateGraceMs, fullReloadMs }: OpenAddressesOptions): OpenAddresses {
  let addresses = new Map<string, number>();
  let asOf = 0;
  let lastFull = 0;

  async function load(since: Date | null) {
    return sql.begin("isolation level repeatable read read only", async (tx) => {
      const [clock] = await tx<{ now: Date }[]>`select now() as now`;
      const open = tx`dw.chain = 'sui' and dw.mode = 'live' and dw.active
        and (p.status in ('pending', 'confirming')
             or p.expires_at > now() - make_interval(secs => ${lateGraceMs / 1000}))`;
      // Two statements rather than one with an optional filter: the incremental one must use
      // the created_at index whatever plan the full one gets.
      const rows = since
        ? await tx<{ address: string }[]>`
            select dw.address from deposit_wallets dw join payments p on p.id = dw.payment_id
            where dw.chain = 'sui' and dw.created_at > ${since} and ${open}`
        : await tx<{ address: string }[]>`
            select dw.address from deposit_wallets dw join payments p on p.id = dw.payment_id
            where ${open}`;
      return { now: clock!.now.getTime(), rows };
    });
  }

  return {
    partition: (address) => addresses.get(address),
    get size() {
      return addresses.size;
    },
    get asOf() {
      return asOf;
    },
    async refresh() {
      const full = Date.now() - lastFull >= fullReloadMs;
      const { now, rows } = await load(full ? null : new Date(asOf - OVERLAP_MS));
      if (full) {
        const next = new Map<string, number>();
        for (const { address } of rows) next.set(address, partitionOf(address));
        addresses = next;
        lastFull = Date.now();
      } else {
        for (const { address } of rows) {
          if (!addresses.has(address)) addresses.set(address, partitionOf(address));
        }
      }
      asOf = now;
    },
  };
}
