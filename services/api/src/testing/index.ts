// Test harness for other workspace packages' tests (SDK, examples, end-to-end).

export { createSessionTokens } from "../auth/session-token.js";
export { createTestMerchant, type TestMerchant } from "./merchant.js";
export { call, type SharedInfra, startTestApi, type TestApi } from "./test-api.js";
