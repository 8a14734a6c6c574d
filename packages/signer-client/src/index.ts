export * from "./approval.js";
export * from "./audit-head.js";
export * from "./client.js";
export * from "./intent.js";
