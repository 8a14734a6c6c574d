export * from "./assert-never.js";
export * from "./coins.js";
export * from "./fees.js";
export * from "./money.js";
export * from "./payment.js";
export * from "./payment-codec.js";
export * from "./prices.js";
export * from "./settlement-work.js";
