export { generateEndpointSecret, openSecret, parseSecretKey, sealSecret } from "./endpoint-secret.js";
export {
  isForbiddenAddress,
  parseWebhookUrl,
  type ResolvedTarget,
  resolveWebhookTarget,
  type UrlPolicyOptions,
} from "./url-policy.js";
