// `npm run migrate`: applies pending migrations to DATABASE_URL.
import { loadConfigOrExit, migrateConfigSchema } from "@gateway/config";
import { createLogger } from "@gateway/logging";
import { createSql } from "./client.js";
import { migrate } from "./migrate.js";

const config = loadConfigOrExit("migrate", migrateConfigSchema);
const log = createLogger({ name: "migrate", level: config.LOG_LEVEL });
const sql = createSql({ url: config.DATABASE_URL, max: 1, applicationName: "migrate" });
try {
  const applied = await migrate(sql);
  log.info({ applied }, applied.length ? "migrations applied" : "schema up to date");
} finally {
  await sql.end();
}
