import { randomBytes } from "node:crypto";
import { createSql, migrate, readMigrations, type Sql } from "@gateway/db";
import { inject } from "vitest";

export interface TestDatabase {
  url: string;
  name: string;
  sql: Sql;
  /** Closes every connection the test opened through `sql` and drops the database. */
  drop(): Promise<void>;
}

function infra() {
  return inject("gatewayInfra");
}

/** A fresh, migrated database copied from the run's template; one per test file or test. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const { adminDatabaseUrl, templateDatabase } = infra();
  // Names carry the runner's pid so the global teardown can find leftovers.
  const name = `gwt_${process.ppid}_${randomBytes(6).toString("hex")}`;
  const admin = createSql({ url: adminDatabaseUrl, max: 1, applicationName: "testkit" });
  try {
    // Two files copying the template at once collide ("source database is being accessed").
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`create database ${name} template ${templateDatabase}`);
        break;
      } catch (err) {
        if (attempt > 50 || !String(err).includes("being accessed")) throw err;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end();
  }
  return connect(name);
}

/** A pool on database `name`, and its drop. */
function connect(name: string): TestDatabase {
  const { adminDatabaseUrl } = infra();
  const parsed = new URL(adminDatabaseUrl);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();
  const sql = createSql({ url, max: 5, applicationName: "test" });
  return {
    url,
    name,
    sql,
    async drop() {
      await sql.end({ timeout: 5 });
      const dropper = createSql({ url: adminDatabaseUrl, max: 1, applicationName: "testkit" });
      try {
        await dropper.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/**
 * A fresh database migrated only up to `migration` (its name's prefix, excluded): for a test that
 * writes data in an older schema and then runs the migrations after it.
 */
export async function createDatabaseBefore(migration: string): Promise<TestDatabase> {
  const name = `gwt_${process.ppid}_mig_${randomBytes(6).toString("hex")}`;
  const admin = createSql({ url: adminDatabaseUrl(), max: 1, applicationName: "testkit" });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const db = connect(name);
  await migrate(
    db.sql,
    readMigrations().filter((m) => m.name < migration),
  );
  return db;
}

export function adminDatabaseUrl(): string {
  return infra().adminDatabaseUrl;
}
