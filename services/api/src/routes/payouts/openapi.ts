// The payout endpoints in the OpenAPI document (spread into openapi/document.ts and schemas.ts).
import { CHAINS } from "@gateway/chains";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json, description = "OK") => ({
  description,
  content: { "application/json": { schema } },
});
const error = (description: string) => json(ref("Error"), description);
const body = (name: string) => ({ required: true, content: { "application/json": { schema: ref(name) } } });
const bearer = [{ bearer: [] }];
const e400 = { "400": error("Invalid request: `code` and `param` say what and where.") };
const e401 = {
  "401": error("Missing or invalid session token, or an x-api-key was sent (payouts refuse API keys)."),
};
const e404 = { "404": error("No such payout (or another merchant's).") };
const e429 = { "429": error("Too many requests or attempts; see Retry-After.") };
const mode = {
  name: "mode",
  in: "query",
  description: "live (default) or test.",
  schema: { enum: ["live", "test"] },
};
const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Replays the first response for 24 h; another body with the same key is a 409.",
  schema: { type: "string", maxLength: 255 },
};

export const payoutPaths: Record<string, Json> = {
  "/payouts/context": {
    get: {
      operationId: "getPayoutContext",
      summary: "Balances per chain (and per coin), linked payout wallets and the schedule",
      security: bearer,
      parameters: [mode],
      responses: { "200": json(ref("PayoutContext")), ...e400, ...e401, ...e429 },
    },
  },
  "/payouts/request-otp": {
    post: {
      operationId: "requestPayoutOtp",
      summary: "E-mail a 6-digit code for payouts to one destination (10 minutes, 5 tries, one live code)",
      security: bearer,
      parameters: [idempotencyKey],
      requestBody: { required: false, content: { "application/json": { schema: ref("PayoutOtpRequest") } } },
      responses: { "202": json(ref("PayoutCode"), "Code sent"), ...e400, ...e401, ...e429 },
    },
  },
  "/payouts": {
    post: {
      operationId: "createPayout",
      summary: "Pay out from the available balance with the e-mailed code; the amount is reserved at once",
      security: bearer,
      parameters: [idempotencyKey],
      requestBody: body("CreatePayoutRequest"),
      responses: {
        "201": json(ref("Payout"), "Created"),
        ...e400,
        ...e401,
        "409": error(
          "Idempotency-Key reused with another body, or `destination_not_allowed`: the address is not on the payout allow-list or not in effect yet (an address asked for with this code joins it after the delay).",
        ),
        ...e429,
      },
    },
    get: {
      operationId: "listPayouts",
      summary: "List payouts of one mode, newest first",
      security: bearer,
      parameters: [
        mode,
        { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 } },
        { name: "starting_after", in: "query", schema: { type: "string" } },
      ],
      responses: { "200": json(ref("PayoutList")), ...e400, ...e401, ...e404, ...e429 },
    },
  },
  "/payouts/{id}": {
    get: {
      operationId: "getPayout",
      summary: "Read one payout",
      security: bearer,
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: { "200": json(ref("Payout")), ...e401, ...e404, ...e429 },
    },
  },
  "/payouts/schedule": {
    get: {
      operationId: "getPayoutSchedule",
      summary: "The daily scheduled payout",
      security: bearer,
      parameters: [mode],
      responses: { "200": json(ref("PayoutSchedule")), ...e400, ...e401, ...e404, ...e429 },
    },
    put: {
      operationId: "setPayoutSchedule",
      summary: "Set the hour (UTC), pause or resume, and the minimum of the daily free payout",
      security: bearer,
      requestBody: body("PayoutScheduleRequest"),
      responses: { "200": json(ref("PayoutSchedule")), ...e400, ...e401, ...e429 },
    },
  },
};

const timestamp = {
  type: "string",
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$",
} as const;
const nullable = <T extends object>(schema: T) => ({ anyOf: [schema, { type: "null" }] });
const decimal = { type: "string", pattern: "^\\d+\\.\\d+$" } as const;
const chain = { enum: [...CHAINS] } as const;

export const payoutSchemas = {
  PayoutContext: {
    type: "object",
    required: ["object", "mode", "total_available", "balances", "wallets"],
    properties: {
      object: { const: "payout_context" },
      mode: { enum: ["live", "test"] },
      total_available: { type: "number", description: "USDC and USDT available on every chain (1:1 USD)." },
      balances: {
        type: "array",
        items: {
          type: "object",
          required: ["chain", "available", "pending", "coins"],
          properties: {
            chain,
            available: { type: "number" },
            pending: { type: "number", description: "Reserved by payouts not completed yet." },
            coins: {
              type: "array",
              items: {
                type: "object",
                required: ["coin", "available", "pending", "payable"],
                properties: {
                  coin: { enum: ["USDC", "USDT", "SOL", "SUI"] },
                  available: decimal,
                  pending: decimal,
                  payable: { type: "boolean" },
                },
              },
            },
            manual_payout_network_fee: decimal,
          },
        },
      },
      wallets: {
        type: "array",
        items: {
          type: "object",
          required: ["chain", "address"],
          properties: { chain, address: { type: "string" } },
        },
      },
      schedule: nullable({ $ref: "#/components/schemas/PayoutSchedule" }),
    },
  },
  PayoutOtpRequest: {
    type: "object",
    properties: {
      chain,
      destination_address: { type: "string", description: "Defaults to the chain's linked payout wallet." },
      mode: { enum: ["live", "test"] },
    },
  },
  PayoutCode: {
    type: "object",
    required: ["object", "mode", "chain", "destination_address", "expires_at"],
    properties: {
      object: { const: "payout_code" },
      mode: { enum: ["live", "test"] },
      chain,
      destination_address: { type: "string" },
      sent_to: { type: "string" },
      expires_at: timestamp,
    },
  },
  CreatePayoutRequest: {
    type: "object",
    required: ["chain", "coin_symbol", "amount", "otp"],
    properties: {
      chain,
      coin_symbol: { enum: ["USDC", "USDT"] },
      amount: {
        type: "number",
        exclusiveMinimum: 0,
        description: "Leaves the balance; includes the network fee.",
      },
      destination_address: { type: "string" },
      otp: { type: "string", pattern: "^\\d{6}$" },
      mode: { enum: ["live", "test"] },
    },
  },
  Payout: {
    type: "object",
    required: [
      "id",
      "object",
      "status",
      "amount",
      "coin",
      "chain",
      "destination",
      "transaction_hash",
      "created_at",
    ],
    properties: {
      id: { type: "string", pattern: "^po_" },
      object: { const: "payout" },
      status: { enum: ["pending", "processing", "completed", "failed"] },
      amount: decimal,
      network_fee: decimal,
      net_amount: decimal,
      coin: { enum: ["USDC", "USDT"] },
      chain,
      destination: { type: "string" },
      transaction_hash: nullable({ type: "string" }),
      kind: { enum: ["manual", "scheduled"] },
      mode: { enum: ["live", "test"] },
      is_test: { type: "boolean" },
      simulated: { type: "boolean" },
      failure_reason: nullable({ type: "string" }),
      created_at: timestamp,
      completed_at: nullable(timestamp),
    },
  },
  PayoutList: {
    type: "object",
    required: ["object", "data", "has_more"],
    properties: {
      object: { const: "list" },
      data: { type: "array", items: { $ref: "#/components/schemas/Payout" } },
      has_more: { type: "boolean" },
    },
  },
  PayoutSchedule: {
    type: "object",
    required: ["object", "mode", "hour", "enabled", "minimum_amount", "next_run_at"],
    properties: {
      object: { const: "payout_schedule" },
      mode: { enum: ["live", "test"] },
      hour: { type: "integer", minimum: 0, maximum: 23 },
      enabled: { type: "boolean" },
      minimum_amount: decimal,
      next_run_at: nullable(timestamp),
      last_run_at: nullable(timestamp),
    },
  },
  PayoutScheduleRequest: {
    type: "object",
    required: ["hour"],
    properties: {
      hour: { type: "integer", minimum: 0, maximum: 23, description: "UTC hour of the daily payout." },
      enabled: { type: "boolean", default: true },
      minimum_amount: { type: "number", minimum: 0, description: "Smaller balances wait for a later day." },
      mode: { enum: ["live", "test"] },
    },
  },
} as const;
