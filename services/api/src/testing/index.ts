// Test harness for other workspace packages' tests (SDK, examples, end-to-end).

export { createSessionStore } from "../auth/session-store.js";
export { createSessionTokens } from "../auth/session-token.js";
export { codeIn, createTestAccount, type TestAccount } from "../routes/auth/test-account.js";
export { addTestMember, createTestMerchant, type TestMerchant } from "./merchant.js";
export { call, type SharedInfra, startTestApi, type TestApi } from "./test-api.js";
export { totpNow } from "./totp.js";
