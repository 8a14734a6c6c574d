export {
  buildSignatureHeader,
  DEFAULT_TOLERANCE_SECONDS,
  type ParsedSignatureHeader,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  signPayload,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from "./signature.js";
