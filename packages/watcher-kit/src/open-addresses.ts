// The live deposit addresses of one chain worth watching, in memory: wallets of payments that still
// accept funds, and those expired within the late window. New ones arrive at once by LISTEN, and by
// a periodic load kept as the safety net (docs/design-notes.md, "The open address set").
import type { Chain, Coin } from "@gateway/contracts";
import type { Sql, TransactionSql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import { type Coalesced, coalesce } from "./coalesce.js";
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

const openWhere = (
  tx: Sql | TransactionSql,
  chain: Chain,
  lateWindowMs: number,
) => tx`dw.chain = ${chain} and dw.mode = 'live' and dw.active
    and (p.status in ('pending', 'confirming')
         or p.expires_at > now() - make_interval(secs => ${lateWindowMs / 1000}))`;

/** Open wallets among these addresses, by the unique index on address (an array, so one
 * statement text for any number of them: docs/operations.md, "One statement text per query"). */
const byAddresses = (
  tx: Sql | TransactionSql,
  { chain, lateWindowMs }: OpenAddressesOptions,
  addresses: readonly string[],
) => tx<Row[]>`
    select dw.address, dw.coin from deposit_wallets dw join payments p on p.id = dw.payment_id
    where dw.address = any(${[...addresses]}::text[]) and ${openWhere(tx, chain, lateWindowMs)}
    order by dw.created_at, dw.address`;

/** One snapshot: the database's clock and the rows as of it. */
async function load(options: OpenAddressesOptions, since: Date | null, addresses: readonly string[]) {
  const { sql, chain, lateWindowMs } = options;
  return sql.begin("isolation level repeatable read read only", async (tx) => {
    const [clock] = await tx<{ now: Date }[]>`select now() as now`;
    const open = openWhere(tx, chain, lateWindowMs);
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
    if (since && addresses.length > 0) rows.push(...(await byAddresses(tx, options, addresses)));
    return { now: clock!.now.getTime(), rows };
  });
}

export function createOpenAddresses(options: OpenAddressesOptions): OpenAddresses {
  return new OpenAddressSet(options);
}

class OpenAddressSet implements OpenAddresses {
  readonly #o: OpenAddressesOptions;
  #byAddress = new Map<string, OpenAddress>();
  #ordered: readonly OpenAddress[] = [];
  #asOf = 0;
  #lastFull = 0;
  #version = 0;
  #loads = 0;
  #loop: Repeating | undefined;
  #stopped = false;
  #unlisten: (() => Promise<void>) | undefined;
  readonly #listeners = new Set<() => void>();
  /** Addresses notified since the last load began; the next load reads them. */
  readonly #notified = new Set<string>();
  /** Whether the next load must be a refresh (incremental or full), not only the notified ones. */
  #sweep = false;
  readonly #loader: Coalesced = coalesce(() => this.#step());

  constructor(options: OpenAddressesOptions) {
    this.#o = options;
  }

  get(address: string): OpenAddress | undefined {
    return this.#byAddress.get(address);
  }
  list(): readonly OpenAddress[] {
    return this.#ordered;
  }
  size(): number {
    return this.#byAddress.size;
  }
  version(): number {
    return this.#version;
  }
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  loads(): number {
    return this.#loads;
  }
  asOf(): number {
    return this.#asOf;
  }

  refresh(): Promise<void> {
    this.#sweep = true;
    return this.#loader.run();
  }

  start(): void {
    this.#stopped = false;
    // A failed refresh keeps the last list; the next one tries again.
    this.#loop = repeatEvery(
      this.#o.refreshMs ?? 1000,
      () => this.refresh(),
      () => {},
    );
    this.#listen();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#unlisten?.().catch(() => {});
    this.#unlisten = undefined;
    await this.#loop?.stop();
    await this.#loader.idle();
  }

  #changed() {
    this.#version++;
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch (err) {
        this.#o.log?.warn({ err, chain: this.#o.chain }, "open-address change listener failed");
      }
    }
  }

  async #full() {
    const { now, rows } = await load(this.#o, null, []);
    const known = this.#byAddress;
    const next = new Map<string, OpenAddress>();
    for (const row of rows) {
      next.set(row.address, known.get(row.address) ?? { address: row.address, coin: row.coin });
    }
    const differs = next.size !== known.size || rows.some((r) => !known.has(r.address));
    this.#byAddress = next;
    this.#ordered = [...next.values()];
    this.#asOf = now;
    this.#lastFull = Date.now();
    if (differs) this.#changed();
  }

  #add(rows: readonly Row[]) {
    const added: OpenAddress[] = [];
    for (const row of rows) {
      if (this.#byAddress.has(row.address)) continue;
      const entry = { address: row.address, coin: row.coin };
      this.#byAddress.set(row.address, entry);
      added.push(entry);
    }
    if (added.length > 0) {
      this.#ordered = [...this.#ordered, ...added];
      this.#changed();
    }
  }

  async #incremental(addresses: readonly string[]) {
    const { now, rows } = await load(this.#o, new Date(this.#asOf - OVERLAP_MS), addresses);
    this.#asOf = now;
    this.#add(rows);
  }

  /** Only the notified wallets; `asOf` stays, since other wallets were not looked for. */
  async #notifiedOnly(addresses: readonly string[]) {
    this.#add(await byAddresses(this.#o.sql, this.#o, addresses));
  }

  async #step() {
    const refreshing = this.#sweep;
    this.#sweep = false;
    const addresses = [...this.#notified];
    this.#notified.clear();
    if (!refreshing && addresses.length === 0) return;
    this.#loads++;
    try {
      if (!refreshing) await this.#notifiedOnly(addresses);
      else if (Date.now() - this.#lastFull >= this.#o.fullReloadMs) await this.#full();
      else await this.#incremental(addresses);
    } catch (err) {
      // The next load reads them again (the periodic refresh, if no notification comes).
      for (const address of addresses) this.#notified.add(address);
      throw err;
    }
  }

  #listen() {
    const { sql, chain, log } = this.#o;
    const channel = openAddressesChannel(chain);
    sql
      .listen(channel, (address) => this.#onNotify(address), this.#onListening())
      .then(
        (meta) => {
          this.#unlisten = meta.unlisten;
          if (this.#stopped) void meta.unlisten().catch(() => {});
        },
        (err) => {
          // postgres.js tries again whenever its LISTEN connection reconnects; meanwhile the
          // periodic refresh alone finds new wallets, as before notifications existed.
          log?.warn({ err, chain, channel }, "LISTEN failed; new wallets are found by polling only");
        },
      );
  }

  #onNotify(address: string) {
    if (this.#stopped) return;
    if (address) this.#notified.add(address);
    this.#loader
      .run()
      .catch((err) => this.#o.log?.warn({ err, chain: this.#o.chain }, "loading notified wallets failed"));
  }

  /** Called again each time postgres.js re-establishes LISTEN after its connection dropped. */
  #onListening() {
    const { chain, log } = this.#o;
    let established = false;
    return () => {
      if (this.#stopped) return;
      // Wallets inserted before LISTEN took effect were not notified: refresh. After a drop,
      // reload everything, which also finds wallets made active again meanwhile.
      if (established) {
        this.#lastFull = 0;
        log?.info({ chain, channel: openAddressesChannel(chain) }, "open-address notifications back");
      }
      established = true;
      this.refresh().catch((err) => log?.warn({ err, chain }, "open-address refresh failed"));
    };
  }
}
