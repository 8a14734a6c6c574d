// JSON Schemas (2020-12, as OpenAPI 3.1 uses) of the API's bodies. Tests validate real responses
// against them, so the document cannot drift from what the API sends.

import { CHAINS } from "@gateway/chains";
import { payoutSchemas } from "../routes/payouts/openapi.js";

const decimal = { type: "string", pattern: "^\\d+\\.\\d+$", examples: ["12.50"] } as const;
const timestamp = {
  type: "string",
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$",
} as const;
const nullable = <T extends object>(schema: T) => ({ anyOf: [schema, { type: "null" }] });

export const ERROR_CODE_LIST_DOC = "See docs/errors.md for the closed list of codes.";

export const schemas = {
  ...payoutSchemas,
  Error: {
    type: "object",
    required: ["error"],
    additionalProperties: false,
    properties: {
      error: {
        type: "object",
        required: ["type", "code", "message"],
        additionalProperties: false,
        properties: {
          type: { enum: ["invalid_request_error", "authentication_error", "rate_limit_error", "api_error"] },
          code: { type: "string", description: ERROR_CODE_LIST_DOC },
          message: { type: "string" },
          param: { type: "string" },
        },
      },
    },
  },
  Chain: { enum: [...CHAINS] },
  Coin: { enum: ["USDC", "USDT", "SOL", "SUI"] },
  PaymentStatus: {
    enum: ["pending", "confirming", "confirmed", "completed", "underpaid", "refunded", "expired", "failed"],
  },
  Refund: {
    type: "object",
    additionalProperties: false,
    required: ["id", "reason", "amount", "coin", "chain", "to", "status", "transaction_hash", "simulated"],
    properties: {
      id: { type: "string" },
      reason: { enum: ["underpayment", "overpayment", "late"] },
      amount: decimal,
      coin: { $ref: "#/components/schemas/Coin" },
      chain: { $ref: "#/components/schemas/Chain" },
      to: nullable({ type: "string" }),
      status: { enum: ["pending", "sent"] },
      transaction_hash: nullable({ type: "string" }),
      simulated: { type: "boolean" },
    },
  },
  Payment: {
    type: "object",
    additionalProperties: false,
    required: [
      "id",
      "object",
      "amount",
      "currency",
      "status",
      "is_test",
      "description",
      "redirect_url",
      "checkout_url",
      "fee",
      "chain",
      "coin",
      "deposit_address",
      "amount_due",
      "amount_received",
      "overpaid_amount",
      "refunds",
      "quote",
      "usd_value_at_creation",
      "usd_value_at_completion",
      "usd_rate_at_creation",
      "usd_rate_at_completion",
      "expires_at",
      "created_at",
      "updated_at",
    ],
    properties: {
      id: { type: "string", format: "uuid" },
      object: { const: "payment" },
      amount: { ...decimal, description: "In `currency`, as a decimal string." },
      currency: { enum: ["USD", "USDC", "USDT", "SOL", "SUI"] },
      status: { $ref: "#/components/schemas/PaymentStatus" },
      is_test: { type: "boolean" },
      description: nullable({ type: "string" }),
      redirect_url: nullable({ type: "string" }),
      checkout_url: { type: "string" },
      fee: { ...decimal, description: "1% of the USD value, at least 0.10 USD; charged only on completion." },
      chain: nullable({ $ref: "#/components/schemas/Chain" }),
      coin: nullable({ $ref: "#/components/schemas/Coin" }),
      deposit_address: nullable({ type: "string" }),
      amount_due: nullable(decimal),
      amount_received: decimal,
      overpaid_amount: nullable(decimal),
      refunds: { type: "array", items: { $ref: "#/components/schemas/Refund" } },
      quote: nullable({
        $ref: "#/components/schemas/Quote",
        description: "The chosen wallet's quote (a USD payment paid in SOL or SUI).",
      }),
      usd_value_at_creation: nullable({
        ...decimal,
        description: "USD value when created: the amount for USD/USDC/USDT, amount × live price for SOL/SUI.",
      }),
      usd_value_at_completion: nullable({
        ...decimal,
        description:
          "USD value booked on completion: the USD amount (at the quote when paid in SOL/SUI), amount × price at completion for SOL/SUI payments.",
      }),
      usd_rate_at_creation: nullable({
        ...decimal,
        description: "SOL/SUI payments: USD per coin when created.",
      }),
      usd_rate_at_completion: nullable({
        ...decimal,
        description:
          "USD per coin the completion was valued at (the quote's rate, or the live price for SOL/SUI payments).",
      }),
      expires_at: timestamp,
      created_at: timestamp,
      updated_at: timestamp,
    },
  },
  PaymentList: {
    type: "object",
    additionalProperties: false,
    required: ["object", "data", "has_more"],
    properties: {
      object: { const: "list" },
      data: { type: "array", items: { $ref: "#/components/schemas/Payment" } },
      has_more: { type: "boolean" },
    },
  },
  CreatePaymentRequest: {
    type: "object",
    additionalProperties: false,
    required: ["amount", "currency"],
    properties: {
      amount: {
        type: ["number", "string"],
        description: "A JSON number (or decimal string), at most the currency's decimals.",
      },
      currency: { type: "string", description: "USD, USDC, USDT, SOL or SUI; case-insensitive." },
      redirect_url: { type: "string", format: "uri" },
      description: { type: "string", maxLength: 1000 },
      expires_in: { type: "integer", minimum: 300, maximum: 86400, default: 1800 },
    },
  },
  Quote: {
    type: "object",
    additionalProperties: false,
    required: ["rate", "expires_at"],
    properties: {
      rate: { ...decimal, description: "USD per coin the amount is locked at.", examples: ["150.12"] },
      expires_at: {
        ...timestamp,
        description: "Transfers seen after this are returned; a new generate-wallet call quotes afresh.",
      },
    },
  },
  DepositWallet: {
    type: "object",
    additionalProperties: false,
    required: ["chain", "coin", "address", "amount", "expires_at", "payment_uri", "quote"],
    properties: {
      chain: { $ref: "#/components/schemas/Chain" },
      coin: { $ref: "#/components/schemas/Coin" },
      address: { type: "string" },
      amount: { ...decimal, description: "The exact amount to send, in the coin." },
      expires_at: timestamp,
      payment_uri: nullable({ type: "string", description: "Solana Pay URI on Solana." }),
      quote: nullable({
        $ref: "#/components/schemas/Quote",
        description:
          "SOL or SUI for a USD payment: the locked rate; null for USDC/USDT and SOL/SUI payments.",
      }),
    },
  },
  CheckoutView: {
    type: "object",
    additionalProperties: false,
    required: [
      "id",
      "merchant_name",
      "description",
      "amount",
      "currency",
      "status",
      "is_test",
      "expires_at",
      "redirect_url",
      "options",
      "wallet",
      "amount_received",
      "refunds",
    ],
    properties: {
      id: { type: "string", format: "uuid" },
      merchant_name: { type: "string" },
      description: nullable({ type: "string" }),
      amount: decimal,
      currency: { type: "string" },
      status: { $ref: "#/components/schemas/PaymentStatus" },
      is_test: { type: "boolean" },
      expires_at: timestamp,
      redirect_url: nullable({ type: "string" }),
      options: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["chain", "coin", "amount", "rate"],
          properties: {
            chain: { $ref: "#/components/schemas/Chain" },
            coin: { $ref: "#/components/schemas/Coin" },
            amount: nullable({
              ...decimal,
              description:
                "What to send; for a quoted coin an estimate at the current price (null while none).",
            }),
            rate: nullable({
              ...decimal,
              description: "Quoted coins: USD per coin now; null for 1:1 coins.",
            }),
          },
        },
      },
      wallet: nullable({ $ref: "#/components/schemas/DepositWallet" }),
      amount_received: nullable(decimal),
      refunds: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["amount", "coin", "reason", "status"],
          properties: {
            amount: decimal,
            coin: { type: "string" },
            reason: { type: "string" },
            status: { type: "string" },
          },
        },
      },
    },
  },
  GenerateWalletRequest: {
    type: "object",
    additionalProperties: false,
    required: ["chain", "coin"],
    properties: {
      chain: { $ref: "#/components/schemas/Chain" },
      coin: { $ref: "#/components/schemas/Coin" },
    },
  },
  SimulateRequest: {
    type: "object",
    additionalProperties: false,
    required: ["outcome"],
    properties: { outcome: { enum: ["paid", "underpaid", "overpaid", "expired"] } },
  },
  Health: {
    type: "object",
    required: ["status"],
    properties: { status: { enum: ["ok", "unavailable"] } },
  },
} as const;
