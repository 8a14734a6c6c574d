import { createOutboxRelay } from "@gateway/bus";
import { apiConfigSchema } from "@gateway/config";
import { priceServiceFromConfig } from "@gateway/prices";
import { openService } from "@gateway/service-runtime";
import { createSignerClient } from "@gateway/signer-client";
import { Connection } from "@solana/web3.js";
import { ScheduledPayoutNotices } from "./accounts/scheduled-payout-notices.js";
import { createApp } from "./app.js";
import { createSessionStore } from "./auth/session-store.js";
import { createSessionTokens } from "./auth/session-token.js";
import { depositAddressPool } from "./deposit-address-pool.js";
import { answerClientErrors } from "./http/client-error.js";
import { createRateLimiter } from "./http/rate-limit.js";
import { createMailer } from "./mail/mailer.js";
import { mainnetChains, ReceiptSender } from "./receipts/receipt-sender.js";
import { createPaymentWatch } from "./routes/checkout/payment-watch.js";
import { createPayoutDestinations } from "./routes/payout-destinations/registry.js";
import { payoutApproverFromConfig } from "./routes/payouts/payout-approval.js";
import { signerDepositAddresses, signerTls } from "./signer-addresses.js";

const { config, log, sql, bus, stopOnSignal } = await openService("api", apiConfigSchema, {
  databaseConnections: 20,
});
const relay = createOutboxRelay({ sql, js: bus.js, topology: bus.topology, log });
await relay.start();
const paymentWatch = createPaymentWatch(sql, log);
const signer = createSignerClient({ baseUrl: config.SIGNER_URL, tls: signerTls(config) });
// Feeds are read in the background from here on; requests only read the cache.
const prices = priceServiceFromConfig(config, log);
await prices.start();
const payoutApprover = payoutApproverFromConfig(config);
if (!payoutApprover) log.warn("no API_APPROVER_SEED: live payouts and payout destinations are off");
const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, log });
const receipts = new ReceiptSender({ sql, bus, mailer, log, publicChains: mainnetChains(config) });
await receipts.start();
const payoutNotices = new ScheduledPayoutNotices({ sql, bus, mailer, log });
await payoutNotices.start();
const app = createApp({
  config,
  sql,
  bus,
  log,
  limiter: createRateLimiter(sql),
  sessions: createSessionTokens({
    secret: config.JWT_SECRET,
    ttlSeconds: config.JWT_TTL_SECONDS,
    store: createSessionStore(sql),
  }),
  mailer,
  receipts,
  depositAddresses: depositAddressPool({ sql, deriver: signerDepositAddresses(signer), log }),
  solanaMints: { USDC: config.SOLANA_USDC_MINT, USDT: config.SOLANA_USDT_MINT },
  solana: config.SOLANA_RPC_URL ? new Connection(config.SOLANA_RPC_URL, "confirmed") : undefined,
  payoutApprover,
  payoutDestinations:
    payoutApprover &&
    createPayoutDestinations({
      signer,
      approver: payoutApprover,
      ttlSeconds: config.API_PAYOUT_APPROVAL_TTL_SECONDS,
      log,
    }),
  paymentWatch,
  prices,
});
const server = app.listen(config.PORT, () => log.info({ port: config.PORT }, "api listening"));
answerClientErrors(server);
server.keepAliveTimeout = 65_000;

stopOnSignal([
  // Open checkout streams would otherwise hold server.close() open for minutes.
  async () => paymentWatch.close(),
  () => new Promise<void>((resolve) => server.close(() => resolve())),
  () => receipts.stop(),
  () => payoutNotices.stop(),
  () => relay.stop(),
  () => prices.stop(),
  async () => signer.close(),
]);
