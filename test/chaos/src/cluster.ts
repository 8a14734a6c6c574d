import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSql, migrate, type Sql } from "@gateway/db";
import { freePort, type LocalNats, type LocalPostgres, startNats, startPostgres } from "@gateway/local-infra";
import { writeDevCerts } from "@gateway/signer";
import { generateApproverKey } from "@gateway/signer-client";
import { type ManagedProcess, managedProcess } from "./managed-process.js";

export const SIGNER_MNEMONIC = "test test test test test test test test test test test junk";

export interface ClusterOptions {
  apis?: number;
  settlements?: number;
  notifiers?: number;
  logLevel?: string;
  /** The signer's development seed phrase; a fixed test phrase by default. */
  signerMnemonic?: string;
  /** Extra environment for the API processes (e.g. SMTP_URL). */
  apiEnv?: Record<string, string>;
}

export interface Cluster {
  dir: string;
  sql: Sql;
  databaseUrl: string;
  natsUrl: string;
  apiUrls: string[];
  jwtSecret: string;
  signer: ManagedProcess;
  apis: ManagedProcess[];
  settlements: ManagedProcess[];
  notifiers: ManagedProcess[];
  /** Every service process, for kills and log scans. */
  services(): ManagedProcess[];
  restartNats(): Promise<void>;
  restartPostgres(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Its own PostgreSQL and nats-server (so they can be restarted), the signer over mTLS, and N
 * API, settlement and notifier processes, all started from their main.ts with environment only.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const dir = mkdtempSync(path.join(tmpdir(), "gw-chaos-"));
  const pgPort = await freePort();
  const natsPort = await freePort();
  let pg: LocalPostgres = await startPostgres({ dataDir: path.join(dir, "pg"), port: pgPort });
  let nats: LocalNats = await startNats({ storeDir: path.join(dir, "nats"), port: natsPort });
  const databaseUrl = pg.url;
  const admin = createSql({ url: databaseUrl, max: 1 });
  await migrate(admin);
  await admin.end();
  const sql = createSql({ url: databaseUrl, max: 4 });

  const certsDir = path.join(dir, "certs");
  writeDevCerts({ dir: certsDir });
  mkdirSync(path.join(dir, "signer"), { recursive: true });
  const settlementApprover = generateApproverKey();
  const apiApprover = generateApproverKey();
  const [signerPort, signerHealth] = [await freePort(), await freePort()];
  const logLevel = options.logLevel ?? "warn";
  const signer = managedProcess(
    "signer",
    "signer",
    {
      SIGNER_ENV: "development",
      SIGNER_HOST: "127.0.0.1",
      SIGNER_PORT: String(signerPort),
      SIGNER_HEALTH_PORT: String(signerHealth),
      SIGNER_TLS_DIR: certsDir,
      SIGNER_SEED_MNEMONIC: options.signerMnemonic ?? SIGNER_MNEMONIC,
      SIGNER_TRUSTED_APPROVERS: JSON.stringify([
        { keyId: "settlement-chaos", approves: "refund", publicKey: settlementApprover.publicKey },
        { keyId: "api-chaos", approves: "payout", publicKey: apiApprover.publicKey },
      ]),
      SIGNER_CAPS: JSON.stringify({
        "solana:*": { perIntent: "1000000000000", perDay: "100000000000000" },
        "sui:*": { perIntent: "1000000000000", perDay: "100000000000000" },
      }),
      SIGNER_AUDIT_LOG: path.join(dir, "signer", "audit.jsonl"),
      SIGNER_LOG_LEVEL: logLevel === "silent" ? "fatal" : logLevel,
    },
    `http://127.0.0.1:${signerHealth}/readyz`,
  );
  await signer.start();

  const infra = { DATABASE_URL: databaseUrl, NATS_URL: nats.url, LOG_LEVEL: logLevel };
  const signerClient = {
    SIGNER_URL: `https://127.0.0.1:${signerPort}`,
    SIGNER_CA_FILE: path.join(certsDir, "ca.pem"),
    SIGNER_CERT_FILE: path.join(certsDir, "client.pem"),
    SIGNER_KEY_FILE: path.join(certsDir, "client-key.pem"),
  };
  const jwtSecret = "chaos-secret-chaos-secret-chaos-secret-01";
  const webhookKey = Buffer.alloc(32, 9).toString("base64");

  const apis: ManagedProcess[] = [];
  const apiUrls: string[] = [];
  for (let i = 0; i < (options.apis ?? 2); i++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    apiUrls.push(url);
    apis.push(
      managedProcess(
        `api-${i + 1}`,
        "services/api",
        {
          ...infra,
          ...signerClient,
          PORT: String(port),
          PUBLIC_BASE_URL: url,
          JWT_SECRET: jwtSecret,
          WEBHOOK_SECRET_KEY: webhookKey,
          ALLOW_PRIVATE_WEBHOOKS: "true",
          RATE_LIMIT_PER_MINUTE: "1000000",
          API_APPROVER_KEY_ID: "api-chaos",
          API_APPROVER_SEED: apiApprover.seed,
          ...options.apiEnv,
        },
        `${url}/readyz`,
      ),
    );
  }
  const settlements: ManagedProcess[] = [];
  for (let i = 0; i < (options.settlements ?? 2); i++) {
    const health = await freePort();
    settlements.push(
      managedProcess(
        `settlement-${i + 1}`,
        "services/settlement",
        {
          ...infra,
          ...signerClient,
          HEALTH_PORT: String(health),
          EXPIRY_POLL_MS: "200",
          PUBLIC_BASE_URL: apiUrls[0] ?? "http://127.0.0.1:3000",
          SETTLEMENT_APPROVER_KEY_ID: "settlement-chaos",
          SETTLEMENT_APPROVER_SEED: settlementApprover.seed,
        },
        `http://127.0.0.1:${health}/readyz`,
      ),
    );
  }
  const notifiers: ManagedProcess[] = [];
  for (let i = 0; i < (options.notifiers ?? 1); i++) {
    const health = await freePort();
    notifiers.push(
      managedProcess(
        `notifier-${i + 1}`,
        "services/notifier",
        {
          ...infra,
          HEALTH_PORT: String(health),
          WEBHOOK_SECRET_KEY: webhookKey,
          ALLOW_PRIVATE_WEBHOOKS: "true",
        },
        `http://127.0.0.1:${health}/readyz`,
      ),
    );
  }
  const services = () => [signer, ...apis, ...settlements, ...notifiers];
  // Started one after another: two cores are shared with everything else on this machine.
  for (const p of [...apis, ...settlements, ...notifiers]) await p.start();

  return {
    dir,
    sql,
    databaseUrl,
    natsUrl: nats.url,
    apiUrls,
    jwtSecret,
    signer,
    apis,
    settlements,
    notifiers,
    services,
    async restartNats() {
      await nats.stop("SIGKILL");
      nats = await startNats({ storeDir: path.join(dir, "nats"), port: natsPort });
    },
    async restartPostgres() {
      await pg.stop();
      pg = await startPostgres({ dataDir: path.join(dir, "pg"), port: pgPort });
    },
    async close() {
      await Promise.all(services().map((p) => p.kill()));
      await sql.end({ timeout: 1 }).catch(() => undefined);
      await nats.stop("SIGKILL");
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
