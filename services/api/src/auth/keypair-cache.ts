import { retryWhileUnavailable, type Sql } from "@gateway/db";
import type { Mode } from "@gateway/domain";

export interface KeypairRow {
  id: string;
  merchant_id: string;
  active: boolean;
  /** Null: every scope. */
  scopes: string[] | null;
}

export interface KeypairCache {
  /** The keypair holding this key hash in this mode, or undefined for an unknown key. */
  find(mode: Mode, hash: Buffer): Promise<KeypairRow | undefined>;
  /** Drops every entry: this replica changed a keypair and must not wait for its own notification. */
  clear(): void;
}

/** A bound on staleness should the LISTEN connection drop and a notification be lost. */
const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/**
 * Keypairs by key hash, kept per replica so that a merchant API call does not pay a PostgreSQL
 * round trip to authenticate. A trigger on `api_keypairs` (migration 0600) notifies every replica
 * of any change and each drops its whole cache, so a deactivated keypair is refused as soon as the
 * notification arrives. Until LISTEN is in place the cache is bypassed, and it is emptied again
 * whenever postgres.js re-establishes LISTEN after a reconnect. Unknown and inactive keys are never
 * cached, so random keys cannot fill memory, and concurrent lookups of one key share one query.
 */
export function createKeypairCache(sql: Sql): KeypairCache {
  const entries = new Map<string, { expires: number; row: Promise<KeypairRow | undefined> }>();
  let listening = false;
  // Bumped by every clear: a lookup that started before a change and ends after it must not put
  // what it read before the change back into the cache.
  let generation = 0;
  const clear = () => {
    entries.clear();
    generation++;
  };
  sql
    .listen("api_keypairs", clear, () => {
      clear();
      listening = true;
    })
    .catch(() => {
      // LISTEN failed: stay uncached, every lookup goes to PostgreSQL.
    });

  // A read, so it is simply asked again when a PostgreSQL restart cuts it off: every API call
  // starts here, and the request must not fail (503) before it has done anything (issue #21).
  const query = (mode: Mode, hash: Buffer) =>
    retryWhileUnavailable(() =>
      mode === "test"
        ? sql<
            KeypairRow[]
          >`select id, merchant_id, active, scopes from api_keypairs where test_key_hash = ${hash}`
        : sql<
            KeypairRow[]
          >`select id, merchant_id, active, scopes from api_keypairs where live_key_hash = ${hash}`,
    );

  return {
    clear,
    async find(mode, hash) {
      if (!listening) return (await query(mode, hash))[0];
      const id = `${mode}:${hash.toString("base64")}`;
      const now = Date.now();
      const cached = entries.get(id);
      if (cached && cached.expires > now) return cached.row;
      const entry = { expires: now + TTL_MS, row: query(mode, hash).then((rows) => rows[0]) };
      entries.delete(id);
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
      entries.set(id, entry);
      const forget = () => {
        if (entries.get(id) === entry) entries.delete(id);
      };
      const started = generation;
      // Only active keypairs are kept: an inactive one is read again each time, so turning it
      // back on works at once on every replica, notification or not.
      entry.row.then((row) => {
        if (!row?.active || generation !== started) forget();
      }, forget);
      return entry.row;
    },
  };
}
