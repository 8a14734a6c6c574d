import type { Sql, TransactionSql } from "./client.js";

// Who hears that outbox rows committed: the outbox relay of the process that wrote them, told in
// process right after the commit. Waking relays through PostgreSQL's NOTIFY cost every commit of
// the outbox a lock that serializes all notifying commits of the cluster, and woke every backend
// LISTENing on any channel of the database (PostgreSQL signals them all and each one filters):
// two such commits a payment. A process's own relay publishes its own rows, any replica's relay
// may publish any row (SKIP LOCKED), and every relay polls, so rows of a process without a relay
// (a CLI) or whose relay is down still go out within the poll (packages/bus/src/outbox-relay.ts).

const listeners = new WeakMap<Sql, Set<() => void>>();
/** Open transactions of tracked pools: marking one says its commit carries outbox rows. */
const openTransactions = new WeakMap<TransactionSql, () => void>();

/** Calls `listener` after each commit that wrote outbox rows through `sql`; returns the undo. */
export function onOutboxCommitted(sql: Sql, listener: () => void): () => void {
  const set = listeners.get(sql);
  if (!set) throw new Error("onOutboxCommitted: the pool was not made by createSql");
  set.add(listener);
  return () => set.delete(listener);
}

/** For enqueueOutbox, once its insert has run: in a transaction, tell at its commit; alone, now. */
export function outboxWritten(t: TransactionSql | Sql): void {
  const mark = openTransactions.get(t as TransactionSql);
  if (mark) mark();
  else if (listeners.has(t as Sql)) committed(t as Sql);
  // A savepoint or a pool not made by createSql: its relay finds the rows by its poll.
}

function committed(sql: Sql): void {
  for (const listener of listeners.get(sql) ?? []) listener();
}

/**
 * Makes `sql.begin` say, after a commit, whether the transaction wrote outbox rows. postgres.js's
 * `begin(fn)` or `begin(options, fn)` resolves once COMMIT has been answered; a transaction that
 * failed rolled back, and nothing is told.
 */
export function trackOutboxCommits(sql: Sql): Sql {
  listeners.set(sql, new Set());
  const begin = sql.begin.bind(sql) as (...args: unknown[]) => Promise<unknown>;
  const tracked = (...args: unknown[]) => {
    const body = args[args.length - 1] as (tx: TransactionSql) => unknown;
    let wrote = false;
    const marked = (tx: TransactionSql) => {
      openTransactions.set(tx, () => {
        wrote = true;
      });
      return body(tx);
    };
    return begin(...args.slice(0, -1), marked).then((result) => {
      if (wrote) committed(sql);
      return result;
    });
  };
  (sql as unknown as { begin: typeof tracked }).begin = tracked;
  return sql;
}
