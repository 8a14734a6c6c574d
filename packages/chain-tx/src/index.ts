export * from "./solana.js";
export * from "./solana-message.js";
export * from "./sui.js";
