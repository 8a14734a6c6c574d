import type { AddressInfo } from "node:net";
import { connectBus, createOutboxRelay } from "@gateway/bus";
import { type ApiConfig, apiConfigSchema, parseConfig } from "@gateway/config";
import { createLogger } from "@gateway/logging";
import { createPriceServer, type PriceServer } from "@gateway/price-server";
import { priceServiceFromConfig } from "@gateway/prices";
import { startTestSigner, type TestSigner } from "@gateway/signer-harness";
import { createTestBus, createTestDatabase, type TestBus, type TestDatabase } from "@gateway/testkit";
import { Connection } from "@solana/web3.js";
import { ScheduledPayoutNotices } from "../src/accounts/scheduled-payout-notices.js";
import { createApp } from "../src/app.js";
import { createSessionStore } from "../src/auth/session-store.js";
import { createSessionTokens } from "../src/auth/session-token.js";
import { depositAddressPool } from "../src/deposit-address-pool.js";
import type { ApiDeps } from "../src/deps.js";
import { answerClientErrors } from "../src/http/client-error.js";
import { createRateLimiter } from "../src/http/rate-limit.js";
import { createMailer } from "../src/mail/mailer.js";
import { mainnetChains, ReceiptSender } from "../src/receipts/receipt-sender.js";
import { createPaymentWatch } from "../src/routes/checkout/payment-watch.js";
import { createPayoutDestinations } from "../src/routes/payout-destinations/registry.js";
import { payoutApproverFromConfig } from "../src/routes/payouts/payout-approval.js";
import { signerDepositAddresses } from "../src/signer-addresses.js";

export interface TestApi {
  baseUrl: string;
  /** The local price feeds live mode reads (unless the test pointed PRICE_*_URL elsewhere). */
  priceServer: PriceServer;
  signer: TestSigner;
  deps: ApiDeps;
  db: TestDatabase;
  testBus: TestBus;
  close(): Promise<void>;
}

/** Infrastructure another harness already started, for an API that joins it. */
export interface SharedInfra {
  db: TestDatabase;
  testBus: TestBus;
  signer: TestSigner;
}

/**
 * A real API on a random port over its own database and stream prefix, for one test file; or,
 * with `shared`, over another harness's database, bus and signer (closing leaves those alone).
 */
export async function startTestApi(
  env: Record<string, string> = {},
  shared?: SharedInfra,
  /** Deposit addresses derived per refill of the pool (deposit-address-pool.ts); 64 by default. */
  options: { depositAddressBatch?: number } = {},
): Promise<TestApi> {
  const db = shared?.db ?? (await createTestDatabase());
  const testBus = shared?.testBus ?? (await createTestBus());
  // The payout policy as production runs it (no destination delay in tests).
  const signer = shared?.signer ?? (await startTestSigner({ payoutPolicy: true }));
  // Live mode prices from local feeds in their real formats, never from the internet.
  const priceServer = await createPriceServer();
  const config: ApiConfig = parseConfig("api", apiConfigSchema, {
    PRICE_PYTH_URL: priceServer.sourceUrls.pyth,
    PRICE_COINBASE_URL: priceServer.sourceUrls.coinbase,
    PRICE_KRAKEN_URL: priceServer.sourceUrls.kraken,
    PRICE_REFRESH_MS: "200",
    API_APPROVER_KEY_ID: signer.approvers.api.keyId,
    API_APPROVER_SEED: signer.approvers.api.seedHex,
    DATABASE_URL: db.url,
    NATS_URL: testBus.natsUrl,
    BUS_PREFIX: testBus.prefix,
    PORT: "0",
    JWT_SECRET: "test-secret-test-secret-test-secret-0123",
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
    ALLOW_PRIVATE_WEBHOOKS: "true",
    LOG_LEVEL: "silent",
    RATE_LIMIT_PER_MINUTE: "100000",
    ...env,
  });
  const log = createLogger({ name: "api", level: config.LOG_LEVEL });
  const bus = await connectBus({ url: config.NATS_URL, prefix: config.BUS_PREFIX, name: "api-test", log });
  const relay = createOutboxRelay({ sql: db.sql, js: bus.js, topology: bus.topology, log, pollMs: 50 });
  await relay.start();
  const payoutApprover = payoutApproverFromConfig(config);
  const prices = priceServiceFromConfig(config, log);
  await prices.start();
  const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, log });
  const receipts = new ReceiptSender({ sql: db.sql, bus, mailer, log, publicChains: mainnetChains(config) });
  await receipts.start();
  const payoutNotices = new ScheduledPayoutNotices({ sql: db.sql, bus, mailer, log });
  await payoutNotices.start();
  const deps: ApiDeps = {
    config,
    sql: db.sql,
    bus,
    log,
    limiter: createRateLimiter(db.sql),
    sessions: createSessionTokens({
      secret: config.JWT_SECRET,
      ttlSeconds: config.JWT_TTL_SECONDS,
      store: createSessionStore(db.sql),
    }),
    mailer,
    receipts,
    depositAddresses: depositAddressPool({
      sql: db.sql,
      deriver: signerDepositAddresses(signer.clients.api),
      log,
      ...(options.depositAddressBatch ? { batch: options.depositAddressBatch } : {}),
    }),
    solanaMints: { USDC: config.SOLANA_USDC_MINT, USDT: config.SOLANA_USDT_MINT },
    solana: config.SOLANA_RPC_URL ? new Connection(config.SOLANA_RPC_URL, "confirmed") : undefined,
    payoutApprover,
    payoutDestinations:
      payoutApprover &&
      createPayoutDestinations({
        signer: signer.clients.api,
        approver: payoutApprover,
        ttlSeconds: config.API_PAYOUT_APPROVAL_TTL_SECONDS,
        log,
      }),
    paymentWatch: createPaymentWatch(db.sql, log, 200),
    prices,
  };
  const server = createApp(deps).listen(0, "127.0.0.1");
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  deps.config.PUBLIC_BASE_URL = env.PUBLIC_BASE_URL ?? baseUrl;
  return {
    baseUrl,
    priceServer,
    signer,
    deps,
    db,
    testBus,
    async close() {
      deps.paymentWatch.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await receipts.stop();
      await payoutNotices.stop();
      await relay.stop();
      await prices.stop();
      await priceServer.close();
      await bus.close();
      if (shared) return;
      await signer.close();
      await testBus.cleanup();
      await db.drop();
    },
  };
}

/** fetch + JSON, returning status, headers and parsed body. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  let payload: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await fetch(baseUrl + path, { method, headers, body: payload });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (a page); keep the text.
  }
  return { status: response.status, headers: response.headers, body };
}
