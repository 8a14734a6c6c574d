import { type Notifier, type NotifierOptions, startNotifier } from "@gateway/notifier";
import type { TestHost } from "./test-host.js";

/**
 * The notifier in-process beside a test API: it delivers that API's events to loopback receivers
 * and looks for due retries every 50 ms, so deliveries land within a test's patience.
 */
export function startTestNotifier(
  host: TestHost,
  options: Pick<NotifierOptions, "retryScheduleMs" | "pollMs"> = {},
): Promise<Notifier> {
  return startNotifier({
    sql: host.db.sql,
    bus: host.deps.bus,
    log: host.deps.log,
    webhookSecretKey: host.deps.config.WEBHOOK_SECRET_KEY,
    allowPrivateWebhooks: true,
    pollMs: 50,
    ...options,
  });
}
