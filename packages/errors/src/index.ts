export { ERROR_CODES, type ErrorCode, type ErrorType, isErrorCode } from "./codes.js";
export {
  type ErrorBody,
  errorBody,
  GatewayError,
  type GatewayErrorOptions,
  statusOf,
} from "./gateway-error.js";
