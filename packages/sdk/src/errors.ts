/** The four error types of the API's error body. */
export type GatewayErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "rate_limit_error"
  | "api_error";

/** An error the API answered with (or a network failure, as `api_connection_error`). */
export class GatewayApiError extends Error {
  override readonly name: string = "GatewayApiError";
  constructor(
    message: string,
    /** HTTP status; 0 when no response arrived. */
    readonly status: number,
    readonly type: GatewayErrorType | "api_connection_error",
    /** The closed error code, e.g. `amount_too_precise` (docs/errors.md). */
    readonly code: string,
    /** The request field at fault, when there is one. */
    readonly param: string | undefined,
    readonly requestId?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export class InvalidRequestError extends GatewayApiError {
  override readonly name = "InvalidRequestError";
}
export class AuthenticationError extends GatewayApiError {
  override readonly name = "AuthenticationError";
}
export class RateLimitError extends GatewayApiError {
  override readonly name = "RateLimitError";
}
export class ApiError extends GatewayApiError {
  override readonly name = "ApiError";
}
export class ConnectionError extends GatewayApiError {
  override readonly name = "ConnectionError";
}

export function errorFromResponse(status: number, body: unknown): GatewayApiError {
  const error = (
    body as { error?: { type?: string; code?: string; message?: string; param?: string } } | undefined
  )?.error;
  const message = error?.message ?? `HTTP ${status}`;
  const code = error?.code ?? "unknown";
  const param = error?.param;
  switch (error?.type) {
    case "invalid_request_error":
      return new InvalidRequestError(message, status, "invalid_request_error", code, param);
    case "authentication_error":
      return new AuthenticationError(message, status, "authentication_error", code, param);
    case "rate_limit_error":
      return new RateLimitError(message, status, "rate_limit_error", code, param);
    default:
      return new ApiError(message, status, "api_error", code, param);
  }
}
