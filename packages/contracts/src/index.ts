export * from "./event-types.js";
export * from "./messages.js";
export * from "./money.js";
export * from "./payment-resource.js";
export * from "./resources.js";
export * from "./statuses.js";
export * from "./webhook-payloads.js";
