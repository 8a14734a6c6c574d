// Schemas of the dashboard, accounts and webhook endpoints (see docs/dashboard.md, docs/webhooks.md).
const timestamp = {
  type: "string",
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$",
} as const;
const nullable = <T extends object>(schema: T) => ({ anyOf: [schema, { type: "null" }] });
const list = (item: string) => ({
  type: "object",
  required: ["object", "data"],
  properties: {
    object: { const: "list" },
    data: { type: "array", items: { $ref: `#/components/schemas/${item}` } },
    has_more: { type: "boolean" },
  },
});

export const moreSchemas = {
  SignupRequest: {
    type: "object",
    required: ["email", "password", "business_name"],
    properties: {
      email: { type: "string", format: "email" },
      password: { type: "string", minLength: 10 },
      business_name: { type: "string" },
    },
  },
  Signup: {
    type: "object",
    required: ["object", "email", "verification"],
    properties: {
      object: { const: "signup" },
      email: { type: "string" },
      verification: { const: "code_sent" },
    },
  },
  VerifyEmailRequest: {
    type: "object",
    required: ["email", "code"],
    properties: { email: { type: "string" }, code: { type: "string", pattern: "^\\d{6}$" } },
  },
  EmailVerification: {
    type: "object",
    required: ["object", "email", "verified"],
    properties: {
      object: { const: "email_verification" },
      email: { type: "string" },
      verified: { const: true },
    },
  },
  LoginRequest: {
    type: "object",
    required: ["email", "password"],
    properties: { email: { type: "string" }, password: { type: "string" } },
  },
  Token: { type: "object", required: ["token"], properties: { token: { type: "string" } } },
  Merchant: {
    type: "object",
    required: ["id", "object", "email", "business_name", "created_at"],
    properties: {
      id: { type: "string" },
      object: { const: "merchant" },
      email: { type: "string" },
      business_name: { type: "string" },
      created_at: timestamp,
    },
  },
  ApiKeypair: {
    type: "object",
    required: ["id", "object", "active", "test_key_prefix", "live_key_prefix", "created_at"],
    properties: {
      id: { type: "string" },
      object: { type: "string" },
      active: { type: "boolean" },
      test_key_prefix: { type: "string" },
      live_key_prefix: { type: "string" },
      created_at: timestamp,
      updated_at: timestamp,
    },
  },
  CreatedApiKeypair: {
    allOf: [
      { $ref: "#/components/schemas/ApiKeypair" },
      {
        type: "object",
        required: ["test_key", "live_key"],
        properties: {
          test_key: { type: "string", pattern: "^gw_test_", description: "Shown once." },
          live_key: { type: "string", pattern: "^gw_live_", description: "Shown once." },
        },
      },
    ],
  },
  ApiKeypairList: list("ApiKeypair"),
  PayoutWallet: {
    type: "object",
    required: ["object", "chain", "address"],
    properties: {
      object: { const: "payout_wallet" },
      chain: { $ref: "#/components/schemas/Chain" },
      address: { type: "string" },
      created_at: timestamp,
      updated_at: timestamp,
      effective_at: {
        description: "When live payouts may start going here (set by PUT, after the signer's delay).",
        anyOf: [timestamp, { type: "null" }],
      },
    },
  },
  PayoutWalletList: list("PayoutWallet"),
  PayoutDestination: {
    type: "object",
    required: ["object", "chain", "mode", "address", "linked", "status", "requested_at", "effective_at"],
    properties: {
      object: { const: "payout_destination" },
      chain: { $ref: "#/components/schemas/Chain" },
      mode: { enum: ["live", "test"] },
      address: { type: "string" },
      linked: { type: "boolean", description: "The payout wallet: scheduled payouts go here." },
      status: { enum: ["pending", "active", "cancelled"] },
      requested_at: timestamp,
      effective_at: timestamp,
      cancelled_at: { anyOf: [timestamp, { type: "null" }] },
    },
  },
  PayoutDestinationList: list("PayoutDestination"),
  PayoutWalletCode: {
    type: "object",
    required: ["object", "chain", "address", "expires_at"],
    properties: {
      object: { const: "payout_wallet_code" },
      chain: { type: "string" },
      address: { type: "string" },
      sent_to: { type: "string" },
      expires_at: timestamp,
    },
  },
  WebhookEndpoint: {
    type: "object",
    required: ["id", "url", "is_test", "events", "description", "created_at"],
    properties: {
      id: { type: "string", pattern: "^whk_" },
      url: { type: "string" },
      is_test: { type: "boolean" },
      events: { type: "array", items: { type: "string" } },
      description: nullable({ type: "string" }),
      created_at: timestamp,
    },
  },
  CreatedWebhookEndpoint: {
    allOf: [
      { $ref: "#/components/schemas/WebhookEndpoint" },
      {
        type: "object",
        required: ["secret"],
        properties: { secret: { type: "string", pattern: "^whsec_", description: "Shown once." } },
      },
    ],
  },
  WebhookEndpointList: list("WebhookEndpoint"),
  CreateWebhookRequest: {
    type: "object",
    required: ["url"],
    properties: {
      url: { type: "string", description: "https in live mode; http for test endpoints." },
      is_test: { type: "boolean" },
      events: { type: "array", items: { type: "string" }, description: "Default: every event." },
      description: { type: "string" },
    },
  },
  WebhookDelivery: {
    type: "object",
    required: ["id", "endpoint_id", "event_id", "event_type", "status", "attempts", "attempt_log"],
    properties: {
      id: { type: "string" },
      endpoint_id: { type: "string" },
      event_id: { type: "string" },
      event_type: { type: "string" },
      status: { type: "string" },
      attempts: { type: "integer" },
      next_attempt_at: nullable(timestamp),
      created_at: timestamp,
      last_attempt_at: nullable(timestamp),
      last_status_code: nullable({ type: "integer" }),
      attempt_log: { type: "array", items: { type: "object" } },
    },
  },
  WebhookDeliveryList: list("WebhookDelivery"),
  DashboardPayment: {
    type: "object",
    required: ["payment", "events"],
    properties: {
      payment: { $ref: "#/components/schemas/Payment" },
      events: { type: "array", items: { type: "object" } },
    },
  },
} as const;
