import type { Sql, TransactionSql } from "./client.js";

// Who hears that outbox rows committed: the relay of the process that wrote them, told in process
// (NOTIFY would serialize every notifying commit of the cluster). Rows of a process without a
// running relay go out with any relay's poll (packages/bus/src/outbox-relay.ts).

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
