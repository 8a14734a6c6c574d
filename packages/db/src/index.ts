export { type CreateSqlOptions, createSql, type Fragment, type Sql, type TransactionSql } from "./client.js";
export { idFromBytes, newId } from "./ids.js";
export { applyWholeBatches, type MessageBatcher } from "./message-batches.js";
export { MIGRATIONS_DIR, type Migration, MigrationError, migrate, readMigrations } from "./migrate.js";
export { enqueueOutbox, type OutboxMessage } from "./outbox.js";
export { onOutboxCommitted, outboxWritten } from "./outbox-commits.js";
export { isDatabaseUnavailable, retryWhileTransient, retryWhileUnavailable } from "./retry.js";
export { createAuditHeadStore, type StoredAuditHead } from "./signer-audit-heads.js";
