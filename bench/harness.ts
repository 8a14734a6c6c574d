// What the HTTP benches need around their measurements: a database of their own, dropped after,
// and a results file whose hand-written notes survive a new recording.
import path from "node:path";
import { createSql, type Sql } from "@gateway/db";
import { writeKeepingNotes } from "./notes-marker.js";

export interface BenchDatabase {
  sql: Sql;
  url: string;
  drop(): Promise<void>;
}

/** A new database on the server of `adminUrl`, named after the bench and the time. */
export async function createBenchDatabase(
  adminUrl: string,
  name: string,
  max: number,
): Promise<BenchDatabase> {
  const dbName = `gw_${name}_${Date.now().toString(36)}`;
  const admin = createSql({ url: adminUrl, max: 1 });
  await admin.unsafe(`create database ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const sql = createSql({ url: url.toString(), max });
  return {
    sql,
    url: url.toString(),
    async drop() {
      await sql.end();
      await admin.unsafe(`drop database ${dbName} with (force)`);
      await admin.end();
    },
  };
}

/** Writes `lines` to bench/<file>, keeping whatever follows the notes marker there. */
export function recordResults(file: string, lines: string[]): void {
  writeKeepingNotes(path.join(import.meta.dirname, file), `${lines.join("\n")}\n`);
}
