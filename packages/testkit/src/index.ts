export { type Gate, gate } from "./gate.js";
export { singleConnection } from "./prepared-statements.js";
export { skipRelayBacklog } from "./relay-backlog.js";
export { createTestBus, natsUrl, type TestBus } from "./test-bus.js";
export {
  adminDatabaseUrl,
  createDatabaseBefore,
  createTestDatabase,
  type TestDatabase,
} from "./test-database.js";
export { waitFor } from "./wait-for.js";
export {
  type ReceivedWebhook,
  type ReceiverBehaviour,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./webhook-receiver.js";
