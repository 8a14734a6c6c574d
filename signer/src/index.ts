// The signer's modules, for tests and benchmarks; the process itself starts from main.ts.
export * from "./config.js";
export * from "./dev-certs.js";
export * from "./health.js";
export * from "./intents/approvals.js";
export * from "./intents/intent.js";
export { nonceAccountAddress } from "./intents/solana.js";
export * from "./keys/keyring.js";
export * from "./keys/sealed-seed.js";
export * from "./refusal.js";
export * from "./seed.js";
export * from "./server.js";
export * from "./signer-core.js";
export * from "./state/audit-log.js";
export * from "./state/ledger.js";
export * from "./state/open-state.js";
