import { GatewayError } from "@gateway/errors";
import { createMetricsRegistry, databaseMetrics, httpMetrics } from "@gateway/metrics";
import { priceMetrics } from "@gateway/prices";
import express, { type Express } from "express";
import { checkoutPageRoutes } from "./checkout-page/index.js";
import { dashboardApiRoutes } from "./dashboard/api/index.js";
import { dashboardPageRoutes } from "./dashboard/page.js";
import type { ApiDeps } from "./deps.js";
import { createClientIp } from "./http/client-ip.js";
import { rerunAfterDatabaseRestart } from "./http/database-rerun.js";
import { errorMiddleware, notFound } from "./http/error-middleware.js";
import { jsonBody } from "./http/json-body.js";
import { rateLimitByIp } from "./http/rate-limit.js";
import { routedBySegment } from "./http/routed-by-segment.js";
import { openApiDocument } from "./openapi/document.js";
import { apiKeyRoutes } from "./routes/api-keys/index.js";
import { auditLogRoutes } from "./routes/audit-log/index.js";
import { authRoutes } from "./routes/auth/index.js";
import { checkoutRoutes } from "./routes/checkout/index.js";
import { eventRoutes } from "./routes/events/index.js";
import { exportRoutes } from "./routes/exports/index.js";
import { healthRoutes } from "./routes/health.js";
import { paymentLinkPageRoutes, paymentLinkRoutes } from "./routes/payment-links/index.js";
import { paymentRoutes } from "./routes/payments/index.js";
import { payoutDestinationRoutes } from "./routes/payout-destinations/index.js";
import { payoutWalletRoutes } from "./routes/payout-wallets/index.js";
import { payoutRoutes } from "./routes/payouts/index.js";
import { sessionRoutes } from "./routes/sessions/index.js";
import { solanaPayRoutes } from "./routes/solana-pay/index.js";
import { teamRoutes } from "./routes/team/index.js";
import { webhookRoutes } from "./routes/webhooks/index.js";

/**
 * The HTTP surface. Pages, static assets, health and the OpenAPI document are not rate limited;
 * every JSON API call is (docs/dashboard.md, "Rate limits"), across replicas, per client IP.
 */
export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  const clientIp = createClientIp(deps.config.TRUSTED_PROXIES);
  const metrics = createMetricsRegistry("api");
  databaseMetrics(metrics, deps.sql);
  if (deps.prices) priceMetrics(metrics, deps.prices, deps.config.PRICE_MAX_AGE_SECONDS);
  app.use(httpMetrics(metrics));

  // Headers every answer carries, and a NUL in the path refused: it would reach PostgreSQL,
  // which cannot store it in text. One layer for both, as every request passes it.
  app.use((req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setHeader("Cache-Control", "no-store");
    if (/%00/i.test(req.url) || req.url.includes("\0"))
      return next(
        new GatewayError("parameter_invalid", {
          param: "path",
          message: "The path contains a NUL character.",
        }),
      );
    next();
  });
  app.get("/metrics", async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.metrics());
  });
  app.get("/openapi.json", (_req, res) => {
    res.json(openApiDocument(deps.config.PUBLIC_BASE_URL));
  });

  // Health, pages and assets (no rate limit). Each router is entered only by the paths it could
  // serve (routed-by-segment.ts): the JSON API's calls walk past them in one step.
  app.use(
    routedBySegment(
      healthRoutes(deps),
      dashboardPageRoutes(),
      checkoutPageRoutes(deps),
      paymentLinkPageRoutes(deps),
    ),
  );

  // The JSON API.
  const api = express.Router();
  api.use(rateLimitByIp(deps.limiter, deps.config.RATE_LIMIT_PER_MINUTE, clientIp));
  api.use(jsonBody);
  api.use(
    routedBySegment(
      checkoutRoutes(deps),
      paymentRoutes(deps),
      authRoutes(deps),
      apiKeyRoutes(deps),
      payoutWalletRoutes(deps),
      dashboardApiRoutes(deps),
      webhookRoutes(deps),
      payoutRoutes(deps, { approver: deps.payoutApprover }),
      payoutDestinationRoutes(deps),
      teamRoutes(deps),
      sessionRoutes(deps),
      auditLogRoutes(deps),
      solanaPayRoutes(deps),
      paymentLinkRoutes(deps),
      eventRoutes(deps),
      exportRoutes(deps),
    ),
  );
  api.use(rerunAfterDatabaseRestart(api));
  app.use(api);

  app.use(notFound);
  app.use(errorMiddleware(deps.log));
  return app;
}
