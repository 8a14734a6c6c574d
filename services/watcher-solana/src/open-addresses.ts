// The live Solana deposit addresses worth watching, loaded from PostgreSQL: active wallets of
// payments that still accept funds, plus recently expired ones (a late transfer must still be
// seen to be returned). New wallets are picked up incrementally; a full reload drops closed ones.
import type { Sql } from "@gateway/db";
import type { Coin } from "@gateway/domain";
import type { WatchedAddress } from "./deposits-in-transaction.js";

export interface OpenAddress extends WatchedAddress {
  /** The token account to scan for stablecoins, computed when first needed (curve math is slow). */
  scanTarget?: string;
}

export interface OpenAddresses {
  get(address: string): OpenAddress | undefined;
  /** In a stable order for round-robin scans; replaced (not mutated) on reload. */
  list(): readonly OpenAddress[];
  size(): number;
  /** Bumps whenever the set changes (for provider registration). */
  version(): number;
  refresh(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

export interface OpenAddressesOptions {
  sql: Sql;
  /** How long after expiry an address stays watched for late transfers. */
  lateWindowMs: number;
  /** New wallets are looked for this often. */
  refreshMs: number;
  /** The whole set is reloaded this often. */
  fullReloadMs?: number;
}

interface Row {
  address: string;
  coin: Coin;
  created_at: Date;
}

export function createOpenAddresses(options: OpenAddressesOptions): OpenAddresses {
  const { sql, lateWindowMs, refreshMs } = options;
  const fullReloadMs = options.fullReloadMs ?? 30_000;
  let byAddress = new Map<string, OpenAddress>();
  let ordered: OpenAddress[] = [];
  let watermark: Date | null = null;
  let lastFull = 0;
  let version = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const lateCutoff = () => new Date(Date.now() - lateWindowMs);

  async function full() {
    const rows = await sql<Row[]>`
      select w.address, w.coin, w.created_at
      from deposit_wallets w join payments p on p.id = w.payment_id
      where w.chain = 'solana' and w.mode = 'live' and w.active
        and (p.status in ('pending', 'confirming') or p.expires_at > ${lateCutoff()})
      order by w.created_at, w.address`;
    const next = new Map<string, OpenAddress>();
    for (const row of rows) {
      next.set(row.address, byAddress.get(row.address) ?? { address: row.address, coin: row.coin });
    }
    const changed = next.size !== byAddress.size || rows.some((r) => !byAddress.has(r.address));
    byAddress = next;
    ordered = [...next.values()];
    watermark = rows.at(-1)?.created_at ?? watermark;
    lastFull = Date.now();
    if (changed) version++;
  }

  async function incremental() {
    // A second of overlap: rows committed out of created_at order are not missed.
    const since = new Date((watermark?.getTime() ?? 0) - 1000);
    const rows = await sql<Row[]>`
      select w.address, w.coin, w.created_at
      from deposit_wallets w join payments p on p.id = w.payment_id
      where w.chain = 'solana' and w.mode = 'live' and w.active and w.created_at >= ${since}
        and (p.status in ('pending', 'confirming') or p.expires_at > ${lateCutoff()})
      order by w.created_at, w.address`;
    let added = false;
    for (const row of rows) {
      if (byAddress.has(row.address)) continue;
      const entry = { address: row.address, coin: row.coin };
      byAddress.set(row.address, entry);
      ordered = [...ordered, entry];
      added = true;
    }
    watermark = rows.at(-1)?.created_at ?? watermark;
    if (added) version++;
  }

  async function refresh() {
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
    refresh,
    start() {
      const tick = () => {
        timer = setTimeout(async () => {
          await refresh().catch(() => {});
          if (timer) tick();
        }, refreshMs);
      };
      tick();
    },
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      await running?.catch(() => {});
    },
  };
}
