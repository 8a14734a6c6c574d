export * from "./event-types.js";
export * from "./messages.js";
export * from "./money.js";
// Types only: the schemas bring zod, which the pages bundled from this index must not need.
export type { Payment, Quote, Refund } from "./payment-resource.js";
export * from "./resources.js";
export * from "./statuses.js";
export * from "./webhook-payloads.js";
