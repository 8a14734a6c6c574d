export {
  anyMethod,
  apiKeyHeader,
  authorizationHeader,
  body,
  contentType,
  type FuzzContext,
  forgeJwt,
  idempotencyKey,
  segment,
  toRequestPath,
} from "./arbitraries.js";
export { type Endpoint, endpointsOf, fillPath, loadEndpoints } from "./endpoints.js";
export { contractViolation } from "./error-shape.js";
export { type RawResponse, rawRequest } from "./raw-request.js";
