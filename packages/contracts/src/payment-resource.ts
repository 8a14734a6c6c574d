// The Payment resource as the API answers it and webhooks carry it. Its zod schema is its one
// description: the TypeScript type is inferred from it, and the OpenAPI document and the SDK's
// types are generated from it (docs/code-layout.md, "One home").
import { z } from "zod";
import { CHAINS, COINS, CURRENCIES } from "./money.js";
import { PAYMENT_STATUSES, REFUND_REASONS, REFUND_STATUSES } from "./statuses.js";

/** Amounts on the wire: decimal strings, never floats. */
export const DecimalSchema = z.string().regex(/^\d+\.\d+$/);
/** Timestamps: ISO 8601 in UTC with milliseconds. */
export const TimestampSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

export const ChainSchema = z.enum(CHAINS).meta({ id: "Chain" });
export const CoinSchema = z.enum(COINS).meta({ id: "Coin" });
export const PaymentStatusSchema = z.enum(PAYMENT_STATUSES).meta({ id: "PaymentStatus" });

export const RefundSchema = z
  .object({
    /** `<payment id>:<transfer id>:<reason>`, stable across retries. */
    id: z.string(),
    reason: z.enum(REFUND_REASONS),
    amount: DecimalSchema,
    coin: CoinSchema,
    chain: ChainSchema,
    /** The sender of the refunded transfer; null only for a simulated refund. */
    to: z.string().nullable(),
    status: z.enum(REFUND_STATUSES),
    transaction_hash: z.string().nullable(),
    simulated: z.boolean(),
  })
  .meta({ id: "Refund" });

export const QuoteSchema = z
  .object({
    rate: DecimalSchema.meta({ description: "USD per coin the amount is locked at.", examples: ["150.12"] }),
    expires_at: TimestampSchema.meta({
      description: "Transfers seen after this are returned; a new generate-wallet call quotes afresh.",
    }),
  })
  .meta({ id: "Quote" });

export const PaymentSchema = z
  .object({
    id: z.uuid(),
    object: z.literal("payment"),
    amount: DecimalSchema.meta({ description: "In `currency`, as a decimal string." }),
    currency: z.enum(CURRENCIES),
    status: PaymentStatusSchema,
    is_test: z.boolean(),
    description: z.string().nullable(),
    redirect_url: z.string().nullable(),
    checkout_url: z.string(),
    fee: DecimalSchema.meta({
      description: "1% of the USD value, at least 0.10 USD; charged only on completion.",
    }),
    /** Null until the customer chose how to pay (a deposit wallet was generated). */
    chain: ChainSchema.nullable(),
    coin: CoinSchema.nullable(),
    deposit_address: z.string().nullable(),
    amount_due: DecimalSchema.nullable(),
    amount_received: DecimalSchema,
    overpaid_amount: DecimalSchema.nullable(),
    refunds: z.array(RefundSchema),
    quote: QuoteSchema.nullable().meta({
      description: "The chosen wallet's quote (a USD payment paid in SOL or SUI).",
    }),
    usd_value_at_creation: DecimalSchema.nullable().meta({
      description: "USD value when created: the amount for USD/USDC/USDT, amount × live price for SOL/SUI.",
    }),
    usd_value_at_completion: DecimalSchema.nullable().meta({
      description:
        "USD value booked on completion: the USD amount (at the quote when paid in SOL/SUI), amount × price at completion for SOL/SUI payments.",
    }),
    usd_rate_at_creation: DecimalSchema.nullable().meta({
      description: "SOL/SUI payments: USD per coin when created.",
    }),
    usd_rate_at_completion: DecimalSchema.nullable().meta({
      description:
        "USD per coin the completion was valued at (the quote's rate, or the live price for SOL/SUI payments).",
    }),
    expires_at: TimestampSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({ id: "Payment" });

export type Refund = z.infer<typeof RefundSchema>;
/** A locked rate: USD per whole coin as a decimal string, until `expires_at` (docs/payment-lifecycle.md). */
export type Quote = z.infer<typeof QuoteSchema>;
export type Payment = z.infer<typeof PaymentSchema>;
