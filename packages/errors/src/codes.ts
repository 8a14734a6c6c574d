/** The four error types of the error body (docs/errors.md). */
export type ErrorType = "invalid_request_error" | "authentication_error" | "rate_limit_error" | "api_error";

interface CodeSpec {
  status: number;
  type: ErrorType;
  /** Default message; callers may give a more specific one. */
  message: string;
}

/**
 * The closed set of error codes the HTTP edge may return. Adding a code is a deliberate act:
 * merchants switch on these strings, so each is documented in docs/errors.md.
 */
export const ERROR_CODES = {
  // 400: the request itself is wrong; retrying it unchanged will fail again.
  body_invalid: {
    status: 400,
    type: "invalid_request_error",
    message: "The request body is not valid JSON.",
  },
  parameter_missing: {
    status: 400,
    type: "invalid_request_error",
    message: "A required parameter is missing.",
  },
  parameter_invalid: {
    status: 400,
    type: "invalid_request_error",
    message: "A parameter has an invalid value.",
  },
  parameter_unknown: {
    status: 400,
    type: "invalid_request_error",
    message: "The request has an unknown parameter.",
  },
  amount_invalid: {
    status: 400,
    type: "invalid_request_error",
    message: "The amount is not a valid decimal number.",
  },
  amount_too_precise: {
    status: 400,
    type: "invalid_request_error",
    message: "The amount has more decimals than the currency allows.",
  },
  amount_not_positive: {
    status: 400,
    type: "invalid_request_error",
    message: "The amount must be greater than zero.",
  },
  amount_too_small: {
    status: 400,
    type: "invalid_request_error",
    message: "The amount is below the minimum.",
  },
  amount_too_large: {
    status: 400,
    type: "invalid_request_error",
    message: "The amount is above the maximum.",
  },
  currency_unsupported: {
    status: 400,
    type: "invalid_request_error",
    message: "The currency is not supported.",
  },
  chain_unsupported: { status: 400, type: "invalid_request_error", message: "The chain is not supported." },
  coin_unsupported: {
    status: 400,
    type: "invalid_request_error",
    message: "The coin cannot pay this payment on this chain.",
  },
  address_invalid: {
    status: 400,
    type: "invalid_request_error",
    message: "The address is not valid for this chain.",
  },
  url_invalid: { status: 400, type: "invalid_request_error", message: "The URL is not valid." },
  url_forbidden: {
    status: 400,
    type: "invalid_request_error",
    message: "The URL points to a forbidden network address.",
  },
  idempotency_key_invalid: {
    status: 400,
    type: "invalid_request_error",
    message: "The Idempotency-Key header is invalid.",
  },
  insufficient_balance: {
    status: 400,
    type: "invalid_request_error",
    message: "The amount exceeds the available balance.",
  },
  code_invalid: {
    status: 400,
    type: "invalid_request_error",
    message: "The code is invalid or has expired.",
  },
  destination_required: {
    status: 400,
    type: "invalid_request_error",
    message: "A destination wallet is required.",
  },
  // 401 / 403: who is asking is unknown or not allowed.
  api_key_missing: { status: 401, type: "authentication_error", message: "The x-api-key header is missing." },
  api_key_invalid: {
    status: 401,
    type: "authentication_error",
    message: "The API key is invalid or not active.",
  },
  token_missing: {
    status: 401,
    type: "authentication_error",
    message: "The Authorization bearer token is missing.",
  },
  token_invalid: {
    status: 401,
    type: "authentication_error",
    message: "The token is invalid or has expired.",
  },
  credentials_invalid: {
    status: 401,
    type: "authentication_error",
    message: "The e-mail or password is incorrect.",
  },
  email_not_verified: {
    status: 403,
    type: "authentication_error",
    message: "The e-mail address is not verified yet.",
  },
  mode_forbidden: { status: 403, type: "invalid_request_error", message: "This key's mode cannot do this." },
  permission_denied: {
    status: 403,
    type: "invalid_request_error",
    message: "Your role or this API key's scopes do not allow this.",
  },
  two_factor_setup_required: {
    status: 403,
    type: "invalid_request_error",
    message: "Your team requires two-factor login: set up an authenticator app or a passkey first.",
  },
  login_token_invalid: {
    status: 401,
    type: "authentication_error",
    message: "The login token is invalid, used or expired; log in again.",
  },
  passkey_invalid: {
    status: 400,
    type: "invalid_request_error",
    message: "The passkey response could not be verified.",
  },
  // 404 / 405 / 409 / 413 / 415
  resource_not_found: { status: 404, type: "invalid_request_error", message: "No such object." },
  route_not_found: { status: 404, type: "invalid_request_error", message: "No such endpoint." },
  method_not_allowed: {
    status: 405,
    type: "invalid_request_error",
    message: "The method is not allowed here.",
  },
  idempotency_key_reused: {
    status: 409,
    type: "invalid_request_error",
    message: "The Idempotency-Key was used with another request.",
  },
  idempotency_request_in_progress: {
    status: 409,
    type: "invalid_request_error",
    message: "A request with this Idempotency-Key is still in progress.",
  },
  state_conflict: {
    status: 409,
    type: "invalid_request_error",
    message: "The object is not in a state that allows this.",
  },
  already_exists: { status: 409, type: "invalid_request_error", message: "The object already exists." },
  member_exists: {
    status: 409,
    type: "invalid_request_error",
    message: "This e-mail address already has an account.",
  },
  last_owner: {
    status: 409,
    type: "invalid_request_error",
    message: "The team must keep at least one owner.",
  },
  destination_not_allowed: {
    status: 409,
    type: "invalid_request_error",
    message: "The destination is not on your payout allow-list, or not in effect yet.",
  },
  headers_too_large: {
    status: 431,
    type: "invalid_request_error",
    message: "The request's headers or URL are too large.",
  },
  payload_too_large: {
    status: 413,
    type: "invalid_request_error",
    message: "The request body is too large.",
  },
  unsupported_media_type: {
    status: 415,
    type: "invalid_request_error",
    message: "The request body must be application/json.",
  },
  // 429
  rate_limited: {
    status: 429,
    type: "rate_limit_error",
    message: "Too many requests; retry after the time given in Retry-After.",
  },
  too_many_attempts: {
    status: 429,
    type: "rate_limit_error",
    message: "Too many attempts; wait before trying again.",
  },
  // 5xx: our fault or a dependency's; always logged.
  internal_error: { status: 500, type: "api_error", message: "Something went wrong on our side." },
  service_unavailable: {
    status: 503,
    type: "api_error",
    message: "A dependency is unavailable; retry shortly.",
  },
  price_unavailable: {
    status: 503,
    type: "api_error",
    message: "No reliable live price is available right now; retry shortly.",
  },
} as const satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}
