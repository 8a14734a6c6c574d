// One API process over a bench database, with a merchant and its keys written directly: what
// payments-bench.ts and payments-cpu.ts put under load.
import { migrate } from "@gateway/db";
import { freePort } from "@gateway/local-infra";
import { createTestMerchant } from "../services/api/test/merchant.js";
import { type ServiceProcess, startService, waitForReady } from "../test/e2e/src/processes.js";
import type { BenchDatabase } from "./harness.js";

export interface BenchApi {
  process: ServiceProcess;
  baseUrl: string;
  /** The merchant's test key (its live key exists too, never shown). */
  key: string;
  /** The PostgreSQL backends of the bench database other than the bench's own: the API's pool. */
  backendPids(): Promise<number[]>;
}

/**
 * Migrates `db`, writes a merchant with its keys as the API's tests do (`createTestMerchant`),
 * and starts the API through tsx, as the end-to-end tests do, with its rate limit raised as for a
 * merchant's flash sale from one server. `nodeOptions`: Node's own (a profiler's, say).
 */
export async function startBenchApi(
  db: BenchDatabase,
  natsUrl: string,
  nodeOptions: string[] = [],
): Promise<BenchApi> {
  const { sql } = db;
  await migrate(sql);
  const key = (await createTestMerchant(sql, "Bench")).testKey;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const api = startService(
    "services/api",
    {
      DATABASE_URL: db.url,
      NATS_URL: natsUrl,
      BUS_PREFIX: `bench${Date.now().toString(36)}`,
      PORT: String(port),
      JWT_SECRET: "bench-secret-bench-secret-bench-secret-00",
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 3).toString("base64"),
      RATE_LIMIT_PER_MINUTE: "100000000",
      LOG_LEVEL: "warn",
    },
    nodeOptions,
  );
  try {
    await waitForReady(`${baseUrl}/readyz`, api);
  } catch (err) {
    await api.stop();
    throw err;
  }
  return {
    process: api,
    baseUrl,
    key,
    backendPids: async () =>
      (
        await sql<
          { pid: number }[]
        >`select pid from pg_stat_activity where datname = ${new URL(db.url).pathname.slice(1)} and pid <> pg_backend_pid()`
      ).map((r) => r.pid),
  };
}
