// The fault on what settlement keeps about signing: its journal of signed transactions lost (the
// `chain_intents` rows deleted) while it runs. The claim it tests: the signer, not PostgreSQL,
// stops a second sweep, refund or payout (docs/signer.md, "Exactly once, without chain access").
// The restore of the whole database to an older backup is database-restore.ts.
import { retryWhileUnavailable, type Sql } from "@gateway/db";

/** Rows the fault removed, for the run's figures. */
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
