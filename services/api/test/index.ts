// Test harness for other workspace packages' tests (SDK, examples, end-to-end).

export { createSessionStore } from "../src/auth/session-store.js";
export { createSessionTokens } from "../src/auth/session-token.js";
export { addTestMember, createTestMerchant, type TestMerchant } from "./merchant.js";
export { codeIn, createTestAccount, type TestAccount } from "./test-account.js";
export { call, type SharedInfra, startTestApi, type TestApi } from "./test-api.js";
export { totpNow } from "./totp.js";
