import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Sql } from "./client.js";

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../migrations");

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export class MigrationError extends Error {
  override readonly name = "MigrationError";
}

/**
 * Applies pending migrations in name order, each in its own transaction. An advisory lock makes
 * concurrent runners (several replicas starting at once) wait for each other; an applied
 * migration whose file changed afterwards stops everything, because the database no longer
 * matches the code.
 */
export async function migrate(sql: Sql, migrations = readMigrations()): Promise<string[]> {
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(74236001)`;
    await tx`create table if not exists schema_migrations (
      name text primary key, checksum text not null, applied_at timestamptz not null default now())`;
    const done = new Map(
      (await tx<{ name: string; checksum: string }[]>`select name, checksum from schema_migrations`).map(
        (r) => [r.name, r.checksum],
      ),
    );
    for (const migration of migrations) {
      const previous = done.get(migration.name);
      if (previous !== undefined) {
        if (previous !== migration.checksum) {
          throw new MigrationError(`migration ${migration.name} changed after it was applied`);
        }
        continue;
      }
      await tx.savepoint(async (sp) => {
        await sp.unsafe(migration.sql);
        await sp`insert into schema_migrations (name, checksum) values (${migration.name}, ${migration.checksum})`;
      });
      applied.push(migration.name);
    }
  });
  return applied;
}
