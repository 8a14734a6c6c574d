import { ERROR_CODES, type ErrorCode, type ErrorType } from "./codes.js";

/** The documented HTTP error body: `{"error":{"type","code","message","param"}}`. */
export interface ErrorBody {
  error: { type: ErrorType; code: ErrorCode; message: string; param?: string };
}

export interface GatewayErrorOptions {
  message?: string;
  /** The request field at fault, in the JSON path form merchants send it (`amount`, `events[2]`). */
  param?: string;
  cause?: unknown;
  /** Headers the edge must add, e.g. Retry-After. */
  headers?: Record<string, string>;
}

/** An error that the HTTP edge turns into a documented response; anything else is a 500. */
export class GatewayError extends Error {
  override readonly name = "GatewayError";
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: GatewayErrorOptions = {}) {
    super(options.message ?? ERROR_CODES[code].message, { cause: options.cause });
    this.code = code;
    this.param = options.param;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  get type(): ErrorType {
    return ERROR_CODES[this.code].type;
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.message, this.param);
  }
}

export function errorBody(code: ErrorCode, message?: string, param?: string): ErrorBody {
  const spec = ERROR_CODES[code];
  return {
    error: {
      type: spec.type,
      code,
      message: message ?? spec.message,
      ...(param === undefined ? {} : { param }),
    },
  };
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}
