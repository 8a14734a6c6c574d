export type { Notifier } from "@gateway/notifier";
export type { Settlement } from "@gateway/settlement";
export type { TestHost } from "./test-host.js";
export { startTestNotifier } from "./test-notifier.js";
export { startTestSettlement } from "./test-settlement.js";
