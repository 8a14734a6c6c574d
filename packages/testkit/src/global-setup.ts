// Vitest global setup: one PostgreSQL and one NATS for the whole run, found or started, plus a
// migrated template database that each test file copies.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSql, migrate } from "@gateway/db";
import { type LocalNats, type LocalPostgres, startNats, startPostgres } from "@gateway/local-infra";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    gatewayInfra: { adminDatabaseUrl: string; templateDatabase: string; natsUrl: string };
  }
}

export default async function setup(project: TestProject) {
  const started: { pg?: LocalPostgres; nats?: LocalNats; dir?: string } = {};
  const log = (line: string) => {
    if (process.env.TESTKIT_VERBOSE) console.error(`[testkit] ${line}`);
  };
  let adminDatabaseUrl = process.env.DATABASE_URL;
  let natsUrl = process.env.NATS_URL;
  if (!adminDatabaseUrl || !natsUrl) {
    started.dir = mkdtempSync(path.join(os.tmpdir(), "gateway-test-"));
    // The embedded server runs as the `postgres` OS user, which must reach its data folder.
    chmodSync(started.dir, 0o755);
  }
  if (!adminDatabaseUrl) {
    started.pg = await startPostgres({ dataDir: path.join(started.dir!, "pg"), log });
    adminDatabaseUrl = started.pg.url;
  }
  if (!natsUrl) {
    started.nats = await startNats({ storeDir: path.join(started.dir!, "nats"), log });
    natsUrl = started.nats.url;
  }

  const templateDatabase = `gw_template_${process.pid}_${Date.now().toString(36)}`;
  const admin = createSql({ url: adminDatabaseUrl, max: 1, applicationName: "testkit" });
  await admin.unsafe(`create database ${templateDatabase}`);
  const templateUrl = withDatabase(adminDatabaseUrl, templateDatabase);
  const template = createSql({ url: templateUrl, max: 1, applicationName: "testkit" });
  try {
    await migrate(template);
  } finally {
    await template.end();
  }

  project.provide("gatewayInfra", { adminDatabaseUrl, templateDatabase, natsUrl });

  return async () => {
    // Databases of crashed test files would otherwise pile up on a shared server.
    const leftovers = await admin<{ datname: string }[]>`
      select datname from pg_database where datname like ${`gwt_${process.pid}_%`} or datname = ${templateDatabase}`;
    for (const { datname } of leftovers)
      await admin.unsafe(`drop database if exists ${datname} with (force)`);
    await admin.end();
    await started.nats?.stop();
    await started.pg?.stop();
    if (started.dir) rmSync(started.dir, { recursive: true, force: true });
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
