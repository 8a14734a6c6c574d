import postgres from "postgres";

export type Sql = postgres.Sql<{ bigint: bigint }>;
export type TransactionSql = postgres.TransactionSql<{ bigint: bigint }>;

export interface CreateSqlOptions {
  url: string;
  /** Connections in this process's pool. */
  max?: number;
  /** Name shown in pg_stat_activity. */
  applicationName?: string;
}

/**
 * One `postgres` client per process. int8 columns come back as `bigint`, so money read from the
 * database never passes through a float.
 */
export function createSql({ url, max = 10, applicationName = "gateway" }: CreateSqlOptions): Sql {
  return postgres(url, {
    max,
    types: { bigint: postgres.BigInt },
    connection: { application_name: applicationName },
    onnotice: () => {},
    idle_timeout: 30,
    connect_timeout: 10,
  });
}
