// The live deposit addresses of one chain worth watching, held in memory: active wallets of
// payments that still accept funds (pending, confirming), plus those expired no longer ago than
// the late window (a late transfer must still be seen to be returned). Test-mode wallets are never
// loaded. New wallets are picked up incrementally by creation time; a full reload now and then
// drops the closed ones.
import type { Chain, Coin } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
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
  /** Database time of the last load's snapshot: every wallet created before it is known. */
  asOf(): number;
  /** Loads new wallets, or everything when the last full load is older than `fullReloadMs`. */
  refresh(): Promise<void>;
  /** Refreshes every `refreshMs` until stopped. */
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
}

/** Overlap of incremental loads: a wallet row can commit a little after its created_at. */
const OVERLAP_MS = 2_000;

interface Row {
  address: string;
  coin: Coin;
}

export function createOpenAddresses(options: OpenAddressesOptions): OpenAddresses {
  const { sql, chain, lateWindowMs, fullReloadMs } = options;
  let byAddress = new Map<string, OpenAddress>();
  let ordered: readonly OpenAddress[] = [];
  let asOf = 0;
  let lastFull = 0;
  let version = 0;
  let loop: Repeating | undefined;
  let running: Promise<void> | undefined;

  /** One snapshot: the database's clock and the rows as of it. */
  async function load(since: Date | null) {
    return sql.begin("isolation level repeatable read read only", async (tx) => {
      const [clock] = await tx<{ now: Date }[]>`select now() as now`;
      const open = tx`dw.chain = ${chain} and dw.mode = 'live' and dw.active
        and (p.status in ('pending', 'confirming')
             or p.expires_at > now() - make_interval(secs => ${lateWindowMs / 1000}))`;
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
      return { now: clock!.now.getTime(), rows };
    });
  }

  async function full() {
    const { now, rows } = await load(null);
    const next = new Map<string, OpenAddress>();
    for (const row of rows) {
      next.set(row.address, byAddress.get(row.address) ?? { address: row.address, coin: row.coin });
    }
    const changed = next.size !== byAddress.size || rows.some((r) => !byAddress.has(r.address));
    byAddress = next;
    ordered = [...next.values()];
    asOf = now;
    lastFull = Date.now();
    if (changed) version++;
  }

  async function incremental() {
    const { now, rows } = await load(new Date(asOf - OVERLAP_MS));
    const added: OpenAddress[] = [];
    for (const row of rows) {
      if (byAddress.has(row.address)) continue;
      const entry = { address: row.address, coin: row.coin };
      byAddress.set(row.address, entry);
      added.push(entry);
    }
    asOf = now;
    if (added.length > 0) {
      ordered = [...ordered, ...added];
      version++;
    }
  }

  function refresh(): Promise<void> {
    running ??= (Date.now() - lastFull >= fullReloadMs ? full() : incremental()).finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    get: (address) => byAddress.get(address),
    list: () => ordered,
    size: () => byAddress.size,
    version: () => version,
    asOf: () => asOf,
    refresh,
    start() {
      // A failed refresh keeps the last list; the next one tries again.
      loop = repeatEvery(options.refreshMs ?? 1000, refresh, () => {});
    },
    async stop() {
      await loop?.stop();
      await running?.catch(() => {});
    },
  };
}
