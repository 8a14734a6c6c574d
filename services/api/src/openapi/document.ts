import { payoutPaths } from "../routes/payouts/openapi.js";
import { morePaths } from "./more-paths.js";
import { moreSchemas } from "./more-schemas.js";
import { schemas } from "./schemas.js";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonBody = (schema: Json, description = "OK") => ({
  description,
  content: { "application/json": { schema } },
});
const error = (description: string) => jsonBody(ref("Error"), description);

const standardErrors = {
  "400": error("Invalid request: `code` and `param` say what and where."),
  "429": error("Rate limited: retry after the `Retry-After` header's seconds."),
};
const authErrors = { "401": error("Missing, unknown or inactive API key.") };
const notFound = { "404": error("No such object (or it belongs to another merchant or mode).") };

const apiKey = [{ apiKey: [] }];
const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Replays the first response for 24 h; another body with the same key is a 409.",
  schema: { type: "string", maxLength: 255 },
};
const idParam = (description: string) => ({
  name: "id",
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});

/** Path items by module; routes added by later work add their own entry here. */
export const paths: Record<string, Json> = {
  "/payments": {
    post: {
      operationId: "createPayment",
      summary: "Create a payment",
      security: apiKey,
      parameters: [idempotencyKey],
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref("CreatePaymentRequest") } },
      },
      responses: {
        "201": jsonBody(ref("Payment"), "Created"),
        ...standardErrors,
        ...authErrors,
        "409": error("Idempotency-Key reused with another body."),
      },
    },
    get: {
      operationId: "listPayments",
      summary: "List payments, newest first",
      security: apiKey,
      parameters: [
        { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 10 } },
        {
          name: "starting_after",
          in: "query",
          schema: { type: "string" },
          description: "Cursor: the last id of the previous page.",
        },
        { name: "status", in: "query", schema: ref("PaymentStatus") },
      ],
      responses: { "200": jsonBody(ref("PaymentList")), ...standardErrors, ...authErrors },
    },
  },
  "/payments/{id}": {
    get: {
      operationId: "getPayment",
      summary: "Fetch a payment to confirm its outcome server-side",
      security: apiKey,
      parameters: [idParam("Payment id (UUID).")],
      responses: {
        "200": jsonBody(ref("Payment")),
        ...authErrors,
        ...notFound,
        "429": standardErrors["429"],
      },
    },
  },
  "/payments/checkout/{id}": {
    get: {
      operationId: "getCheckout",
      summary: "Public view of a payment for the checkout page",
      security: [],
      parameters: [idParam("Payment id (UUID).")],
      responses: { "200": jsonBody(ref("CheckoutView")), ...notFound, "429": standardErrors["429"] },
    },
  },
  "/payments/checkout/{id}/events": {
    get: {
      operationId: "followCheckout",
      summary: "Server-Sent Events: a notice each time the payment changes, until it is final",
      description:
        "A `text/event-stream` of `change` events whose `id` is the payment's version and whose " +
        '`data` is `{"version": n, "status": "…"}`; never the view itself, which the ' +
        "page reads again with `GET /payments/checkout/{id}`. The first event is the current " +
        "version. The stream ends once the status is completed, refunded, expired or failed, " +
        "and after 10 minutes in any case (EventSource reconnects). A comment line every 15 s " +
        "keeps proxies from closing it. The whole stream counts as one request against the rate limit.",
      security: [],
      parameters: [idParam("Payment id (UUID).")],
      responses: {
        "200": {
          description: "The stream of change notices.",
          content: { "text/event-stream": { schema: { type: "string" } } },
        },
        ...notFound,
        "429": standardErrors["429"],
      },
    },
  },
  "/payments/checkout/{id}/generate-wallet": {
    post: {
      operationId: "generateWallet",
      summary: "Choose chain and coin; returns the one-time deposit wallet",
      security: [],
      parameters: [idParam("Payment id (UUID)."), idempotencyKey],
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref("GenerateWalletRequest") } },
      },
      responses: {
        "200": jsonBody(ref("DepositWallet")),
        ...standardErrors,
        ...notFound,
        "409": error("The payment no longer accepts a wallet (not pending or expired)."),
      },
    },
  },
  "/payments/checkout/{id}/simulate": {
    post: {
      operationId: "simulatePayment",
      summary: "Test mode only: simulate an outcome",
      security: [],
      parameters: [idParam("Payment id (UUID) of a test payment."), idempotencyKey],
      requestBody: { required: true, content: { "application/json": { schema: ref("SimulateRequest") } } },
      responses: {
        "202": jsonBody(ref("CheckoutView"), "Accepted; the payment changes shortly."),
        ...standardErrors,
        "404": error("No such test payment."),
        "409": error("The payment is not pending."),
      },
    },
  },
  "/healthz": {
    get: { operationId: "healthz", security: [], responses: { "200": jsonBody(ref("Health")) } },
  },
  "/readyz": {
    get: {
      operationId: "readyz",
      security: [],
      responses: {
        "200": jsonBody(ref("Health")),
        "503": jsonBody(ref("Health"), "A dependency is unreachable."),
      },
    },
  },
};

export function openApiDocument(serverUrl: string) {
  return {
    openapi: "3.1.0",
    info: {
      title: "Gateway API",
      version: "1.0.0",
      description:
        "Crypto payments on Solana and Sui. Merchant calls authenticate with `x-api-key` (gw_test_… or gw_live_…); dashboard and payout calls with `Authorization: Bearer <JWT>`. Amounts are JSON numbers in requests and decimal strings in responses.",
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "x-api-key" },
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      },
      schemas: { ...schemas, ...moreSchemas },
    },
    security: [{ apiKey: [] }],
    paths: { ...paths, ...morePaths, ...payoutPaths },
  };
}
