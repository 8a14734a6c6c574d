type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json, description = "OK") => ({
  description,
  content: { "application/json": { schema } },
});
const error = (description: string) => json(ref("Error"), description);
const body = (name: string) => ({ required: true, content: { "application/json": { schema: ref(name) } } });
const id = (description: string) => ({
  name: "id",
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});
const chain = { name: "chain", in: "path", required: true, schema: ref("Chain") };
const bearer = [{ bearer: [] }];
const apiKey = [{ apiKey: [] }];
const e400 = { "400": error("Invalid request: `code` and `param` say what and where.") };
const e401 = { "401": error("Missing or invalid credentials.") };
const e404 = { "404": error("No such object (or another merchant's).") };
const e429 = { "429": error("Too many requests or attempts; see Retry-After.") };
const limit = { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 } };
const startingAfter = { name: "starting_after", in: "query", schema: { type: "string" } };
const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Replays the first response for 24 h; another body with the same key is a 409.",
  schema: { type: "string", maxLength: 255 },
};
const e409 = {
  "409": error("Idempotency-Key reused with another body, or too many endpoints for this mode."),
};

/** Accounts, keys, payout wallets, the dashboard's JSON, and webhooks. */
export const morePaths: Record<string, Json> = {
  "/auth/signup": {
    post: {
      operationId: "signup",
      summary:
        "Sign up; e-mails a 6-digit verification code. Same answer whether or not the e-mail is registered.",
      security: [],
      requestBody: body("SignupRequest"),
      responses: { "201": json(ref("Signup"), "Created"), ...e400, ...e429 },
    },
  },
  "/auth/verify-email": {
    post: {
      operationId: "verifyEmail",
      security: [],
      requestBody: body("VerifyEmailRequest"),
      responses: { "200": json(ref("EmailVerification")), ...e400, ...e429 },
    },
  },
  "/auth/login": {
    post: {
      operationId: "login",
      summary: "Returns a short-lived JWT for the dashboard and /payouts.",
      security: [],
      requestBody: body("LoginRequest"),
      responses: {
        "200": json(ref("Token")),
        ...e400,
        ...e401,
        "403": error("E-mail not verified yet."),
        ...e429,
      },
    },
  },
  "/auth/me": {
    get: {
      operationId: "me",
      security: bearer,
      responses: { "200": json(ref("Merchant")), ...e401, ...e429 },
    },
  },
  "/api-keys": {
    post: {
      operationId: "createApiKeypair",
      summary: "Generates a test and a live key, shown only in this answer.",
      security: bearer,
      responses: { "201": json(ref("CreatedApiKeypair"), "Created"), ...e401, ...e429 },
    },
    get: {
      operationId: "listApiKeypairs",
      security: bearer,
      responses: { "200": json(ref("ApiKeypairList")), ...e401, ...e429 },
    },
  },
  "/api-keys/{id}/deactivate": {
    post: {
      operationId: "deactivateApiKeypair",
      security: bearer,
      parameters: [id("Keypair id.")],
      responses: { "200": json(ref("ApiKeypair")), ...e401, ...e404, ...e429 },
    },
  },
  "/api-keys/{id}/activate": {
    post: {
      operationId: "activateApiKeypair",
      security: bearer,
      parameters: [id("Keypair id.")],
      responses: { "200": json(ref("ApiKeypair")), ...e401, ...e404, ...e429 },
    },
  },
  "/payout-destinations": {
    get: {
      operationId: "listPayoutDestinations",
      summary: "The payout allow-list the signer keeps: addresses pending their delay, active, or cancelled.",
      security: bearer,
      parameters: [
        {
          name: "mode",
          in: "query",
          description: "live or test; both when absent.",
          schema: { enum: ["live", "test"] },
        },
      ],
      responses: { "200": json(ref("PayoutDestinationList")), ...e400, ...e401, ...e429 },
    },
  },
  "/payout-destinations/{chain}/{address}": {
    delete: {
      operationId: "cancelPayoutDestination",
      summary: "Takes an address off the allow-list, pending or active; no code needed.",
      security: bearer,
      parameters: [
        chain,
        { name: "address", in: "path", required: true, schema: { type: "string" } },
        {
          name: "mode",
          in: "query",
          description: "live (default) or test.",
          schema: { enum: ["live", "test"] },
        },
      ],
      responses: { "200": json(ref("PayoutDestination")), ...e400, ...e401, ...e404, ...e429 },
    },
  },
  "/payout-wallets": {
    get: {
      operationId: "listPayoutWallets",
      security: bearer,
      responses: { "200": json(ref("PayoutWalletList")), ...e401, ...e429 },
    },
  },
  "/payout-wallets/{chain}/request-code": {
    post: {
      operationId: "requestPayoutWalletCode",
      summary: "E-mails a code bound to this chain and address.",
      security: bearer,
      parameters: [chain],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { type: "object", required: ["address"], properties: { address: { type: "string" } } },
          },
        },
      },
      responses: { "202": json(ref("PayoutWalletCode"), "Code sent"), ...e400, ...e401, ...e429 },
    },
  },
  "/payout-wallets/{chain}": {
    put: {
      operationId: "setPayoutWallet",
      security: bearer,
      parameters: [chain],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["address", "otp"],
              properties: { address: { type: "string" }, otp: { type: "string" } },
            },
          },
        },
      },
      responses: { "200": json(ref("PayoutWallet")), ...e400, ...e401, ...e429 },
    },
  },
  "/dashboard/api/payments": {
    get: {
      operationId: "dashboardListPayments",
      security: bearer,
      parameters: [
        { name: "mode", in: "query", schema: { enum: ["live", "test"] } },
        { name: "status", in: "query", schema: ref("PaymentStatus") },
        limit,
        startingAfter,
      ],
      responses: { "200": json(ref("PaymentList")), ...e400, ...e401, ...e429 },
    },
  },
  "/dashboard/api/payments/{id}": {
    get: {
      operationId: "dashboardGetPayment",
      security: bearer,
      parameters: [id("Payment id.")],
      responses: { "200": json(ref("DashboardPayment")), ...e401, ...e404, ...e429 },
    },
  },
  "/dashboard/api/webhooks": {
    get: {
      operationId: "dashboardListWebhooks",
      security: bearer,
      parameters: [{ name: "mode", in: "query", schema: { enum: ["live", "test"] } }],
      responses: { "200": json(ref("WebhookEndpointList")), ...e400, ...e401, ...e429 },
    },
    post: {
      operationId: "dashboardCreateWebhook",
      security: bearer,
      parameters: [idempotencyKey],
      requestBody: body("CreateWebhookRequest"),
      responses: {
        "201": json(ref("CreatedWebhookEndpoint"), "Created"),
        ...e400,
        ...e401,
        ...e409,
        ...e429,
      },
    },
  },
  "/dashboard/api/webhooks/{id}": {
    delete: {
      operationId: "dashboardDeleteWebhook",
      security: bearer,
      parameters: [id("Endpoint id.")],
      responses: { "200": json({ type: "object" }), ...e401, ...e404, ...e429 },
    },
  },
  "/dashboard/api/webhooks/{id}/deliveries": {
    get: {
      operationId: "dashboardListWebhookDeliveries",
      security: bearer,
      parameters: [id("Endpoint id."), limit, startingAfter],
      responses: { "200": json(ref("WebhookDeliveryList")), ...e400, ...e401, ...e404, ...e429 },
    },
  },
  "/dashboard/api/webhooks/{id}/redeliver": {
    post: {
      operationId: "dashboardRedeliverWebhook",
      security: bearer,
      parameters: [id("Endpoint id."), idempotencyKey],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { type: "object", required: ["event_id"], properties: { event_id: { type: "string" } } },
          },
        },
      },
      responses: { "202": json(ref("WebhookDelivery"), "Queued"), ...e400, ...e401, ...e404, ...e429 },
    },
  },
  "/dashboard/api/webhook-deliveries": {
    get: {
      operationId: "dashboardPaymentDeliveries",
      summary: "The webhook deliveries of one payment's events.",
      security: bearer,
      parameters: [{ name: "payment_id", in: "query", required: true, schema: { type: "string" } }],
      responses: { "200": json(ref("WebhookDeliveryList")), ...e400, ...e401, ...e429 },
    },
  },
  "/webhooks": {
    post: {
      operationId: "createWebhook",
      summary: "Registers an endpoint; the `whsec_` signing secret is returned once.",
      security: apiKey,
      requestBody: body("CreateWebhookRequest"),
      responses: {
        "201": json(ref("CreatedWebhookEndpoint"), "Created"),
        ...e400,
        ...e401,
        "403": error("A test key registers only test endpoints."),
        ...e429,
      },
    },
    get: {
      operationId: "listWebhooks",
      security: apiKey,
      responses: { "200": json(ref("WebhookEndpointList")), ...e401, ...e429 },
    },
  },
  "/webhooks/{id}": {
    delete: {
      operationId: "deleteWebhook",
      security: apiKey,
      parameters: [id("Endpoint id (whk_…).")],
      responses: { "200": json({ type: "object" }), ...e401, ...e404, ...e429 },
    },
  },
  "/webhooks/{id}/deliveries": {
    get: {
      operationId: "listWebhookDeliveries",
      summary: "Every delivery with each attempt: status, latency, response excerpt.",
      security: apiKey,
      parameters: [
        id("Endpoint id."),
        limit,
        startingAfter,
        {
          name: "event_id",
          in: "query",
          schema: { type: "string" },
          description: "Only this event's deliveries.",
        },
      ],
      responses: { "200": json(ref("WebhookDeliveryList")), ...e400, ...e401, ...e404, ...e429 },
    },
  },
  "/webhooks/{id}/redeliver": {
    post: {
      operationId: "redeliverWebhook",
      summary:
        "One more attempt now, for any event of the endpoint's merchant and mode (even one older than the endpoint).",
      security: apiKey,
      parameters: [id("Endpoint id."), idempotencyKey],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { type: "object", required: ["event_id"], properties: { event_id: { type: "string" } } },
          },
        },
      },
      responses: { "202": json(ref("WebhookDelivery"), "Queued"), ...e400, ...e401, ...e404, ...e429 },
    },
  },
};
