export {
  buildSignatureHeader,
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  signPayload,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from "@gateway/webhook-signature";
export { createGateway, type Gateway, type GatewayOptions } from "./client.js";
export {
  ApiError,
  AuthenticationError,
  ConnectionError,
  GatewayApiError,
  type GatewayErrorType,
  InvalidRequestError,
  RateLimitError,
} from "./errors.js";
export type * from "./gen/types.js";
export type { RequestOptions } from "./http.js";
