// The signer's modules, for tests and benchmarks; the process itself starts from main.ts.
export * from "./access.js";
export * from "./certificates.js";
export * from "./config.js";
export * from "./dev-certs.js";
export * from "./health.js";
export * from "./identity.js";
export * from "./intents/approvals.js";
export * from "./intents/intent.js";
export * from "./keys/keyring.js";
export * from "./keys/sealed-seed.js";
export * from "./refusal.js";
export * from "./seed.js";
export * from "./server.js";
export * from "./signer-core.js";
export * from "./state/audit-log.js";
export * from "./state/intent-ledger.js";
export * from "./tls-check.js";
