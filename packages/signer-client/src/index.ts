export * from "./approval.js";
export * from "./client.js";
export * from "./intent.js";
