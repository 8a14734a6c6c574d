import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSql, migrate, type Sql } from "@gateway/db";
import { freePort, type LocalNats, type LocalPostgres, startNats, startPostgres } from "@gateway/local-infra";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { devClientFiles, type Role, writeDevCerts } from "@gateway/signer";
import { createSignerClient, generateApproverKey } from "@gateway/signer-client";
import { fundLocalServiceWallets } from "../../../scripts/cluster/fund-service-wallets.js";
import { localFunding } from "../../../scripts/cluster/services.js";
import { type LiveChainClient, solanaClient, suiClient } from "./live-chains.js";
import { type ManagedProcess, managedProcess, ROOT } from "./managed-process.js";

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
  /**
   * Live mode too: the local Solana and Sui networks as processes, their service wallets funded,
   * watcher replicas per chain, chain settlement, and a mail catcher for payout codes.
   */
  live?: { watchersPerChain?: number };
  /** Folder under test/artifacts for the processes' logs; "chaos" by default. */
  artifacts?: string;
}

/** What a live cluster adds: the chains as a customer reaches them, and the mail. */
export interface LiveParts {
  solana: LiveChainClient;
  sui: LiveChainClient;
  mail: MailCatcher;
  localnets: ManagedProcess[];
  watchersSolana: ManagedProcess[];
  watchersSui: ManagedProcess[];
  /** The live vault of each chain. */
  vaults: { solana: string; sui: string };
}

export interface Cluster {
  dir: string;
  sql: Sql;
  databaseUrl: string;
  natsUrl: string;
  apiUrls: string[];
  jwtSecret: string;
  signer: ManagedProcess;
  /** The signer's audit log, for `signer record` after a restore of the database. */
  signerAuditLog: string;
  /** What `npm run after-restore` needs: the database, the coins and the chains as the services see them. */
  afterRestoreEnv: Record<string, string>;
  apis: ManagedProcess[];
  settlements: ManagedProcess[];
  notifiers: ManagedProcess[];
  live?: LiveParts;
  /** Every service process, for kills and log scans. */
  services(): ManagedProcess[];
  restartNats(): Promise<void>;
  restartPostgres(): Promise<void>;
  /**
   * pg_terminate_backend on every connection the services hold (not the harness's own), as a
   * failover or an operator does; resolves with how many were ended.
   */
  terminatePostgresConnections(): Promise<number>;
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
  const signerAuditLog = path.join(dir, "signer", "audit.jsonl");
  const settlementApprover = generateApproverKey();
  const watcherAttestor = generateApproverKey();
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
        { keyId: "watcher-chaos", approves: "transfer", publicKey: watcherAttestor.publicKey },
      ]),
      SIGNER_CAPS: JSON.stringify({
        "solana:*": { perIntent: "1000000000000", perDay: "100000000000000" },
        "sui:*": { perIntent: "1000000000000", perDay: "100000000000000" },
      }),
      SIGNER_AUDIT_LOG: signerAuditLog,
      // Checkpoints and rotations every 200 entries, so kills, restores and repeats meet them.
      SIGNER_CHECKPOINT_ENTRIES: process.env.CHAOS_SIGNER_CHECKPOINT_ENTRIES ?? "200",
      // Live payouts go to fresh addresses, allow-listed by the payout code flow: no delay here.
      SIGNER_PAYOUT_DESTINATION_DELAY_SECONDS: "0",
      SIGNER_LOG_LEVEL: logLevel === "silent" ? "fatal" : logLevel,
    },
    `http://127.0.0.1:${signerHealth}/readyz`,
  );
  await signer.start();

  const infra = { DATABASE_URL: databaseUrl, NATS_URL: nats.url, LOG_LEVEL: logLevel };
  // Each service presents the certificate of its own role.
  const signerClient = (role: Role) => {
    const files = devClientFiles(certsDir, role);
    return {
      SIGNER_URL: `https://127.0.0.1:${signerPort}`,
      SIGNER_CA_FILE: files.ca,
      SIGNER_CERT_FILE: files.cert,
      SIGNER_KEY_FILE: files.key,
    };
  };
  const jwtSecret = "chaos-secret-chaos-secret-chaos-secret-01";
  const webhookKey = Buffer.alloc(32, 9).toString("base64");
  const chains = options.live ? await startLocalnets(certsDir, signerPort) : undefined;
  const mail = options.live ? await createMailCatcher() : undefined;

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
          ...signerClient("api"),
          PORT: String(port),
          PUBLIC_BASE_URL: url,
          JWT_SECRET: jwtSecret,
          WEBHOOK_SECRET_KEY: webhookKey,
          ALLOW_PRIVATE_WEBHOOKS: "true",
          RATE_LIMIT_PER_MINUTE: "1000000",
          API_APPROVER_KEY_ID: "api-chaos",
          API_APPROVER_SEED: apiApprover.seed,
          ...(chains
            ? {
                SMTP_URL: mail!.smtpUrl,
                SUI_NETWORK: "localnet",
                SUI_USDC_COIN_TYPE: chains.suiEnv.SUI_USDC_COIN_TYPE,
                SUI_USDT_COIN_TYPE: chains.suiEnv.SUI_USDT_COIN_TYPE,
              }
            : {}),
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
          ...signerClient("settlement"),
          HEALTH_PORT: String(health),
          EXPIRY_POLL_MS: "200",
          PUBLIC_BASE_URL: apiUrls[0] ?? "http://127.0.0.1:3000",
          SETTLEMENT_APPROVER_KEY_ID: "settlement-chaos",
          SETTLEMENT_APPROVER_SEED: settlementApprover.seed,
          ...chains?.settlementEnv,
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
  const watchersSolana: ManagedProcess[] = [];
  const watchersSui: ManagedProcess[] = [];
  for (let i = 0; chains && i < (options.live?.watchersPerChain ?? 2); i++) {
    const [health, ingress, suiHealth] = [await freePort(), await freePort(), await freePort()];
    watchersSolana.push(
      managedProcess(
        `watcher-solana-${i + 1}`,
        "services/watcher",
        {
          ...infra,
          WATCHER_CHAIN: "solana",
          ...chains.solanaEnv,
          REPLICA_ID: `watcher-solana-${i + 1}`,
          HEALTH_PORT: String(health),
          PORT: String(ingress),
          WEBHOOK_AUTH_HEADER: WATCHER_AUTH,
          PROVIDER_API_URL: chains.solanaEnv.SOLANA_RPC_URL,
          WATCHER_PUBLIC_URL: `http://127.0.0.1:${ingress}/webhooks/solana`,
          HEARTBEAT_MS: "500",
          SIGNATURE_POLL_MS: "50",
          OPEN_ADDRESS_REFRESH_MS: "200",
          RECONCILE_CALLS_PER_SECOND: "50",
          WATCHER_ATTESTATION_KEY_ID: "watcher-chaos",
          WATCHER_ATTESTATION_SEED: watcherAttestor.seed,
        },
        `http://127.0.0.1:${health}/readyz`,
      ),
    );
    watchersSui.push(
      managedProcess(
        `watcher-sui-${i + 1}`,
        "services/watcher",
        {
          ...infra,
          WATCHER_CHAIN: "sui",
          ...chains.suiEnv,
          SUI_WATCHER_REPLICA_ID: `watcher-sui-${i + 1}`,
          HEALTH_PORT: String(suiHealth),
          WATCHER_ATTESTATION_KEY_ID: "watcher-chaos",
          WATCHER_ATTESTATION_SEED: watcherAttestor.seed,
        },
        `http://127.0.0.1:${suiHealth}/readyz`,
      ),
    );
  }
  const services = () => [signer, ...apis, ...settlements, ...notifiers, ...watchersSolana, ...watchersSui];
  // Started one after another: two cores are shared with everything else on this machine.
  for (const p of [...apis, ...settlements, ...notifiers, ...watchersSolana, ...watchersSui]) await p.start();

  return {
    dir,
    sql,
    databaseUrl,
    natsUrl: nats.url,
    apiUrls,
    jwtSecret,
    signer,
    signerAuditLog,
    afterRestoreEnv: {
      DATABASE_URL: databaseUrl,
      ...(chains
        ? {
            SUI_USDC_COIN_TYPE: chains.suiEnv.SUI_USDC_COIN_TYPE,
            SUI_USDT_COIN_TYPE: chains.suiEnv.SUI_USDT_COIN_TYPE,
            SOLANA_RPC_URL: chains.solanaEnv.SOLANA_RPC_URL,
            SUI_GRPC_URL: chains.suiEnv.SUI_GRPC_URL,
            SUI_NETWORK: chains.suiEnv.SUI_NETWORK,
          }
        : {}),
    },
    apis,
    settlements,
    notifiers,
    ...(chains
      ? {
          live: {
            solana: chains.solana,
            sui: chains.sui,
            mail: mail!,
            localnets: chains.processes,
            watchersSolana,
            watchersSui,
            vaults: chains.vaults,
          },
        }
      : {}),
    services,
    async restartNats() {
      await nats.stop("SIGKILL");
      nats = await startNats({ storeDir: path.join(dir, "nats"), port: natsPort });
    },
    async restartPostgres() {
      await pg.stop();
      pg = await startPostgres({ dataDir: path.join(dir, "pg"), port: pgPort });
    },
    async terminatePostgresConnections() {
      // `offset 0` keeps the filter inside: flattened, PostgreSQL may call pg_terminate_backend
      // before it checks the name, ending every backend, this one included.
      const ended = await sql<{ ended: boolean }[]>`
        select pg_terminate_backend(pid) as ended from (
          select pid from pg_stat_activity
          where application_name = any(${SERVICE_APPLICATION_NAMES}) offset 0) services`;
      return ended.filter((r) => r.ended).length;
    },
    async close() {
      await Promise.all(services().map((p) => p.kill()));
      // Every process's output, for reading after a failed run (CI keeps test/artifacts).
      const logs = path.join(ROOT, "test", "artifacts", options.artifacts ?? "chaos");
      mkdirSync(logs, { recursive: true });
      for (const p of [...services(), ...(chains?.processes ?? [])]) {
        writeFileSync(path.join(logs, `${p.name}.log`), p.output());
      }
      await Promise.all((chains?.processes ?? []).map((p) => p.kill()));
      await mail?.close();
      await sql.end({ timeout: 1 }).catch(() => undefined);
      await nats.stop("SIGKILL");
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The application_name each service's main.ts gives its PostgreSQL connections. */
const SERVICE_APPLICATION_NAMES = ["api", "settlement", "notifier", "watcher-solana", "watcher-sui"];

/** The static header the local Solana network sends with its provider webhooks. */
const WATCHER_AUTH = "Bearer chaos-provider-webhook-secret";

/**
 * The local Solana and Sui networks as their own processes (as `npm start` runs them), and the
 * service wallets funded through their faucets: gas for fees, the vaults' token accounts.
 */
async function startLocalnets(certsDir: string, signerPort: number) {
  const [rpcPort, wsPort, suiPort] = [await freePort(), await freePort(), await freePort()];
  const solanaNet = managedProcess(
    "solana-localnet",
    "test/solana-localnet",
    {
      SOLANA_LOCALNET_HOST: "127.0.0.1",
      SOLANA_LOCALNET_PORT: String(rpcPort),
      SOLANA_LOCALNET_WS_PORT: String(wsPort),
      // A provider webhook to a killed replica is retried soon; reconciliation covers the rest.
      SOLANA_LOCALNET_WEBHOOK_RETRY_MS: "2000",
    },
    `http://127.0.0.1:${rpcPort}/healthz`,
  );
  const suiNet = managedProcess(
    "sui-localnet",
    "test/sui-localnet",
    { SUI_LOCALNET_HOST: "127.0.0.1", SUI_LOCALNET_PORT: String(suiPort), SUI_LOCALNET_CHECKPOINT_MS: "100" },
    `http://127.0.0.1:${suiPort}/healthz`,
  );
  await solanaNet.start();
  await suiNet.start();
  // Each network declared with the identity it reports, as `npm start` does.
  const info = async (url: string) => (await (await fetch(`${url}/info`)).json()) as Record<string, string>;
  const solanaEnv = {
    SOLANA_RPC_URL: `http://127.0.0.1:${rpcPort}`,
    SOLANA_WS_URL: `ws://127.0.0.1:${wsPort}`,
    SOLANA_NETWORK: "localnet",
    SOLANA_GENESIS_HASH: String((await info(`http://127.0.0.1:${rpcPort}`)).genesisHash),
  };
  const solana = await solanaClient(solanaEnv.SOLANA_RPC_URL, solanaEnv.SOLANA_WS_URL);
  const sui = await suiClient(`http://127.0.0.1:${suiPort}`);
  const suiEnv = {
    SUI_GRPC_URL: `http://127.0.0.1:${suiPort}`,
    SUI_NETWORK: "localnet",
    SUI_CHAIN_ID: String((await info(`http://127.0.0.1:${suiPort}`)).chainId),
    SUI_USDC_COIN_TYPE: sui.usdcType,
    SUI_USDT_COIN_TYPE: sui.usdtType,
  };
  const signerUrl = `https://127.0.0.1:${signerPort}`;
  // What `npm start` does for its local networks: gas for the service wallets, the vaults'
  // token accounts (a dust mint on Solana, which the vault-versus-ledger check accounts for).
  await fundLocalServiceWallets({
    certsDir,
    signerUrl,
    networks: localFunding(
      (chain) => ({ solana: solanaEnv.SOLANA_RPC_URL, sui: suiEnv.SUI_GRPC_URL })[chain],
    ),
    say: () => {},
  });
  const tls = (file: string) => readFileSync(path.join(certsDir, file));
  const signer = createSignerClient({
    baseUrl: signerUrl,
    tls: { ca: tls("ca.pem"), cert: tls("settlement.pem"), key: tls("settlement-key.pem") },
  });
  const book = await signer.getServiceAddresses().finally(() => signer.close());
  const vaults = { solana: book.solana.live.vault, sui: book.sui.live.vault };
  return {
    processes: [solanaNet, suiNet],
    solana,
    sui,
    solanaEnv,
    suiEnv,
    settlementEnv: { ...solanaEnv, ...suiEnv },
    vaults,
  };
}
