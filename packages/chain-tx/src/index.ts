export * from "./solana.js";
export * from "./sui.js";
