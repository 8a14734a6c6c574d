export { type CreateSqlOptions, createSql, type Fragment, type Sql, type TransactionSql } from "./client.js";
export { idFromBytes, newId } from "./ids.js";
export { MIGRATIONS_DIR, type Migration, MigrationError, migrate, readMigrations } from "./migrate.js";
export { enqueueOutbox, type OutboxMessage } from "./outbox.js";
export { onOutboxCommitted } from "./outbox-commits.js";
export { handleOnce, handleOnceInBatches, type OnceBatcher } from "./processed-messages.js";
export { isDatabaseUnavailable, retryWhileTransient, retryWhileUnavailable } from "./retry.js";
export { createAuditHeadStore, type StoredAuditHead } from "./signer-audit-heads.js";
