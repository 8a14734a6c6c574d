// The live deposit addresses of one chain worth watching, in memory: wallets of payments that still
// accept funds, and those expired within the late window. New ones arrive at once by LISTEN, and by
// a periodic load kept as the safety net (docs/design-notes.md, "The open address set").
import type { Chain, Coin } from "@gateway/contracts";
import type { Sql, TransactionSql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import { coalesce } from "./coalesce.js";
import { type Repeating, repeatEvery } from "./repeat.js";

export interface OpenAddress {
  readonly address: string;
  /** The coin of the wallet: only transfers of it count. */
  readonly coin: Coin;
}

export interface OpenAddresses {
  /** The entry of an open address; the same object across reloads while it stays open. */
  get(address: string): OpenAddress | undefined;
  /** Oldest first, in a stable order for round-robin scans; replaced (not mutated) on change. */
  list(): readonly OpenAddress[];
  size(): number;
  /** Bumps whenever the set changes (provider registration follows it). */
  version(): number;
  /** Calls `listener` after every change of version; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  /** Loads run so far, of every kind (full, incremental, notified addresses). */
  loads(): number;
  /** Database time of the last load's snapshot: every wallet created before it is known. */
  asOf(): number;
  /**
   * Loads new wallets, or everything when the last full load is older than `fullReloadMs`. Joins
   * the load queued behind the one in flight, if any: it settles after a load that started after
   * the call.
   */
  refresh(): Promise<void>;
  /** Refreshes every `refreshMs` until stopped, and loads notified wallets as they come. */
  start(): void;
  stop(): Promise<void>;
}

export interface OpenAddressesOptions {
  sql: Sql;
  chain: Chain;
  /** How long after expiry an address stays watched for late transfers. */
  lateWindowMs: number;
  /** The whole set is reloaded this often, dropping addresses that closed. */
  fullReloadMs: number;
  /** How often `start` refreshes; watchers that refresh on demand need not set it. */
  refreshMs?: number;
  /** Where LISTEN trouble is reported. */
  log?: Logger;
}

/** The channel the deposit_wallets trigger (migration 1300) notifies, with the address. */
export function openAddressesChannel(chain: Chain): string {
  return `deposit_wallets_${chain}`;
}

/** Overlap of incremental loads: a wallet row can commit a little after its created_at. */
const OVERLAP_MS = 2_000;

interface Row {
  address: string;
  coin: Coin;
}

export function createOpenAddresses(options: OpenAddressesOptions): OpenAddresses {
  const { sql, chain, lateWindowMs, fullReloadMs, log } = options;
  let byAddress = new Map<string, OpenAddress>();
  let ordered: readonly OpenAddress[] = [];
  let asOf = 0;
  let lastFull = 0;
  let version = 0;
  let loads = 0;
  let loop: Repeating | undefined;
  let stopped = false;
  let unlisten: (() => Promise<void>) | undefined;
  const listeners = new Set<() => void>();
  /** Addresses notified since the last load began; the next load reads them. */
  const notified = new Set<string>();
  /** Whether the next load must be a refresh (incremental or full), not only the notified ones. */
  let sweep = false;

  const openWhere = (tx: Sql | TransactionSql) => tx`dw.chain = ${chain} and dw.mode = 'live' and dw.active
    and (p.status in ('pending', 'confirming')
         or p.expires_at > now() - make_interval(secs => ${lateWindowMs / 1000}))`;

  /** Open wallets among these addresses, by the unique index on address (an array, so one
   * statement text for any number of them: docs/operations.md, "One statement text per query"). */
  const byAddresses = (tx: Sql | TransactionSql, addresses: readonly string[]) => tx<Row[]>`
    select dw.address, dw.coin from deposit_wallets dw join payments p on p.id = dw.payment_id
    where dw.address = any(${[...addresses]}::text[]) and ${openWhere(tx)}
    order by dw.created_at, dw.address`;

  /** One snapshot: the database's clock and the rows as of it. */
  async function load(since: Date | null, addresses: readonly string[]) {
    return sql.begin("isolation level repeatable read read only", async (tx) => {
      const [clock] = await tx<{ now: Date }[]>`select now() as now`;
      const open = openWhere(tx);
      // Two statements rather than one with an optional filter: the incremental one must use
      // the created_at index whatever plan the full one gets.
      const rows = since
        ? await tx<Row[]>`
            select dw.address, dw.coin from deposit_wallets dw join payments p on p.id = dw.payment_id
            where dw.chain = ${chain} and dw.created_at > ${since} and ${open}
            order by dw.created_at, dw.address`
        : await tx<Row[]>`
            select dw.address, dw.coin from deposit_wallets dw join payments p on p.id = dw.payment_id
            where ${open}
            order by dw.created_at, dw.address`;
      // A notified wallet made active again is older than `since`: read it by address.
      if (since && addresses.length > 0) rows.push(...(await byAddresses(tx, addresses)));
      return { now: clock!.now.getTime(), rows };
    });
  }

  function changed() {
    version++;
    for (const listener of listeners) {
      try {
        listener();
      } catch (err) {
        log?.warn({ err, chain }, "open-address change listener failed");
      }
    }
  }

  async function full() {
    const { now, rows } = await load(null, []);
    const next = new Map<string, OpenAddress>();
    for (const row of rows) {
      next.set(row.address, byAddress.get(row.address) ?? { address: row.address, coin: row.coin });
    }
    const differs = next.size !== byAddress.size || rows.some((r) => !byAddress.has(r.address));
    byAddress = next;
    ordered = [...next.values()];
    asOf = now;
    lastFull = Date.now();
    if (differs) changed();
  }

  function add(rows: readonly Row[]) {
    const added: OpenAddress[] = [];
    for (const row of rows) {
      if (byAddress.has(row.address)) continue;
      const entry = { address: row.address, coin: row.coin };
      byAddress.set(row.address, entry);
      added.push(entry);
    }
    if (added.length > 0) {
      ordered = [...ordered, ...added];
      changed();
    }
  }

  async function incremental(addresses: readonly string[]) {
    const { now, rows } = await load(new Date(asOf - OVERLAP_MS), addresses);
    asOf = now;
    add(rows);
  }

  /** Only the notified wallets; `asOf` stays, since other wallets were not looked for. */
  async function notifiedOnly(addresses: readonly string[]) {
    add(await byAddresses(sql, addresses));
  }

  async function step() {
    const refreshing = sweep;
    sweep = false;
    const addresses = [...notified];
    notified.clear();
    if (!refreshing && addresses.length === 0) return;
    loads++;
    try {
      if (!refreshing) await notifiedOnly(addresses);
      else if (Date.now() - lastFull >= fullReloadMs) await full();
      else await incremental(addresses);
    } catch (err) {
      // The next load reads them again (the periodic refresh, if no notification comes).
      for (const address of addresses) notified.add(address);
      throw err;
    }
  }
  const loader = coalesce(step);

  function refresh(): Promise<void> {
    sweep = true;
    return loader.run();
  }

  function listen() {
    const channel = openAddressesChannel(chain);
    let established = false;
    sql
      .listen(
        channel,
        (address) => {
          if (stopped) return;
          if (address) notified.add(address);
          loader.run().catch((err) => log?.warn({ err, chain }, "loading notified wallets failed"));
        },
        // Called again each time postgres.js re-establishes LISTEN after its connection dropped.
        () => {
          if (stopped) return;
          // Wallets inserted before LISTEN took effect were not notified: refresh. After a drop,
          // reload everything, which also finds wallets made active again meanwhile.
          if (established) {
            lastFull = 0;
            log?.info({ chain, channel }, "open-address notifications back");
          }
          established = true;
          refresh().catch((err) => log?.warn({ err, chain }, "open-address refresh failed"));
        },
      )
      .then(
        (meta) => {
          unlisten = meta.unlisten;
          if (stopped) void meta.unlisten().catch(() => {});
        },
        (err) => {
          // postgres.js tries again whenever its LISTEN connection reconnects; meanwhile the
          // periodic refresh alone finds new wallets, as before notifications existed.
          log?.warn({ err, chain, channel }, "LISTEN failed; new wallets are found by polling only");
        },
      );
  }

  return {
    get: (address) => byAddress.get(address),
    list: () => ordered,
    size: () => byAddress.size,
    version: () => version,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    loads: () => loads,
    asOf: () => asOf,
    refresh,
    start() {
      stopped = false;
      // A failed refresh keeps the last list; the next one tries again.
      loop = repeatEvery(options.refreshMs ?? 1000, refresh, () => {});
      listen();
    },
    async stop() {
      stopped = true;
      await unlisten?.().catch(() => {});
      unlisten = undefined;
      await loop?.stop();
      await loader.idle();
    },
  };
}
