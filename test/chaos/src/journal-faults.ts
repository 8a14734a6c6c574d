// Faults on what settlement keeps about signing: its journal of signed transactions lost, or put
// back to an older copy. The claim they test: the signer, not PostgreSQL, stops a second sweep,
// refund or payout (docs/signer.md, "Exactly once, without chain access").
import { retryWhileUnavailable, type Sql } from "@gateway/db";

/**
 * What a restore of the settlement journals puts back: every table settlement keeps about what
 * the signer signed for it (the bound transactions, Sui's final digests, the nonce pool and its
 * leases) and the signer audit heads it saw. Payments, payouts and the ledger are not in it: see
 * docs/reliability.md for why the restore is cut there.
 */
export const JOURNAL_TABLES = [
  "chain_intents",
  "sui_intent_attempts",
  "sui_intents_done",
  "solana_nonce_accounts",
  "signer_audit_heads",
] as const;

/** Rows each fault removed or replaced, for the run's figures. */
export type JournalRows = Record<string, number>;

/**
 * Intents settlement has signed for and not yet seen final: Solana journal rows without a final
 * transaction, Sui intents with attempts but no final digest, and leased nonces.
 */
export async function intentsInFlight(sql: Sql): Promise<number> {
  const [row] = await retryWhileUnavailable(
    () => sql<{ n: number }[]>`select
      (select count(*) from chain_intents where final_txid is null)::int
      + (select count(distinct intent_id) from sui_intent_attempts a
          where not exists (select 1 from sui_intents_done d where d.intent_id = a.intent_id))::int
      + (select count(*) from solana_nonce_accounts where intent_id is not null)::int as n`,
    60_000,
  );
  return row?.n ?? 0;
}

/**
 * Waits (at most `ms`) until settlement has an intent in flight, so a journal fault strikes
 * work that is under way rather than an idle table; returns how many were in flight.
 */
export async function waitForIntentsInFlight(sql: Sql, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const n = await intentsInFlight(sql);
    if (n > 0 || Date.now() > deadline) return n;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Rows each journal table holds now. */
export async function journalRows(sql: Sql): Promise<JournalRows> {
  const rows: JournalRows = {};
  for (const table of JOURNAL_TABLES) {
    const [row] = await retryWhileUnavailable(
      () => sql<{ n: number }[]>`select count(*)::int as n from ${sql(table)}`,
      60_000,
    );
    rows[table] = row?.n ?? 0;
  }
  return rows;
}

/**
 * `settlement-journal-lost`: every bound transaction settlement recorded is deleted and every
 * nonce lease released, while settlement keeps running. Returns the rows that were lost.
 */
export async function loseSettlementJournal(sql: Sql): Promise<JournalRows> {
  return retryWhileUnavailable(
    () =>
      sql.begin(async (tx) => {
        const lost: JournalRows = {};
        for (const table of ["chain_intents", "sui_intent_attempts", "sui_intents_done"] as const) {
          lost[table] = (await tx`delete from ${tx(table)}`).count;
        }
        lost.nonce_leases = (
          await tx`update solana_nonce_accounts set intent_id = null, leased_at = now() where intent_id is not null`
        ).count;
        return lost;
      }),
    60_000,
  );
}

/**
 * A consistent copy (one repeatable-read snapshot, as pg_dump takes) of the journal tables, kept
 * as tables `<name>_<table>` beside them until the restore. pg_dump itself is not used: the
 * machine's client is older than the chaos cluster's embedded server, which pg_dump refuses; and
 * COPY streams inside a transaction stalled the driver here, so the copy stays in the server.
 */
export async function backupJournal(sql: Sql, name: string): Promise<JournalRows> {
  return retryWhileUnavailable(
    () =>
      sql.begin("isolation level repeatable read", async (tx) => {
        const rows: JournalRows = {};
        for (const table of JOURNAL_TABLES) {
          await tx`drop table if exists ${tx(`${name}_${table}`)}`;
          await tx`create table ${tx(`${name}_${table}`)} as select * from ${tx(table)}`;
          rows[table] = Number((await tx`select count(*)::int as n from ${tx(`${name}_${table}`)}`)[0]!.n);
        }
        return rows;
      }),
    60_000,
  );
}

/** Replaces the journal tables' contents with the copy `backupJournal` kept, in one transaction. */
export async function restoreJournal(sql: Sql, name: string): Promise<void> {
  await retryWhileUnavailable(
    () =>
      sql.begin(async (tx) => {
        await tx`truncate ${tx([...JOURNAL_TABLES])}`;
        for (const table of JOURNAL_TABLES) {
          await tx`insert into ${tx(table)} select * from ${tx(`${name}_${table}`)}`;
          await tx`drop table ${tx(`${name}_${table}`)}`;
        }
      }),
    60_000,
  );
}
