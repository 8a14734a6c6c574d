// The answers of the API as zod schemas, each a component of the OpenAPI document (its `id`).
// The payment's schema is the contracts' own (its type is inferred from it); the other resources
// merchants see are checked at compile time against @gateway/contracts, so they cannot disagree.
import {
  CURRENCIES,
  DELIVERY_STATUSES,
  type DeliveryAttempt,
  type DepositWallet,
  EVENT_TYPES,
  MODES,
  PAYOUT_COINS,
  PAYOUT_KINDS,
  PAYOUT_STATUSES,
  type Payout,
  REFUND_REASONS,
  REFUND_STATUSES,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "@gateway/contracts";
import {
  ChainSchema,
  CoinSchema,
  DecimalSchema,
  PaymentSchema,
  PaymentStatusSchema,
  QuoteSchema,
  TimestampSchema,
} from "@gateway/contracts/payment-resource";
import { ERROR_CODES } from "@gateway/errors";
import { z } from "zod";
import { SCOPES } from "../auth/permissions.js";

export const ERROR_CODE_LIST_DOC = "See docs/errors.md for the closed list of codes.";

const mode = z.enum(MODES);

export const EventTypeSchema = z.enum(EVENT_TYPES).meta({ id: "WebhookEventType" });

export const ErrorSchema = z
  .object({
    error: z.object({
      type: z.enum([...new Set(Object.values(ERROR_CODES).map((c) => c.type))]),
      code: z.string().meta({ description: ERROR_CODE_LIST_DOC }),
      message: z.string(),
      param: z.string().optional(),
    }),
  })
  .meta({ id: "Error" });

/**
 * The error body of a Solana Pay transaction request: the API's own, and the same text again as
 * the top-level `message` the Solana Pay specification has wallets show. Errors raised before the
 * request reaches the operation (rate limit, a body that is not JSON) carry only `error`.
 */
export const WalletErrorSchema = z
  .object({
    error: ErrorSchema.shape.error,
    message: z.string().optional().meta({ description: "The error's message, for the wallet to show." }),
  })
  .meta({ id: "WalletError" });

/** A page of a list, newest first; `has_more` says whether `starting_after` the last id finds more. */
export function listOf<T extends z.ZodType>(item: T, id: string) {
  return z.object({ object: z.literal("list"), data: z.array(item), has_more: z.boolean() }).meta({ id });
}

export const PaymentListSchema = listOf(PaymentSchema, "PaymentList");

export const DepositWalletSchema = z
  .object({
    chain: ChainSchema,
    coin: CoinSchema,
    address: z.string(),
    amount: DecimalSchema.meta({ description: "The exact amount to send, in the coin." }),
    expires_at: TimestampSchema,
    payment_uri: z.string().nullable().meta({ description: "Solana Pay URI on Solana." }),
    transaction_request_url: z.string().nullable().meta({
      description:
        "Solana: a Solana Pay transaction request (`solana:` + this URL, URL-encoded) that a wallet pays in one tap; null on other chains.",
    }),
    quote: QuoteSchema.nullable().meta({
      description: "SOL or SUI for a USD payment: the locked rate; null for USDC/USDT and SOL/SUI payments.",
    }),
  })
  .meta({ id: "DepositWallet" });

export const CheckoutViewSchema = z
  .object({
    id: z.uuid(),
    merchant_name: z.string(),
    description: z.string().nullable(),
    amount: DecimalSchema,
    currency: z.enum(CURRENCIES),
    status: PaymentStatusSchema,
    is_test: z.boolean(),
    expires_at: TimestampSchema,
    redirect_url: z.string().nullable(),
    options: z.array(
      z.object({
        chain: ChainSchema,
        coin: CoinSchema,
        amount: DecimalSchema.nullable().meta({
          description: "What to send; for a quoted coin an estimate at the current price (null while none).",
        }),
        rate: DecimalSchema.nullable().meta({
          description: "Quoted coins: USD per coin now; null for 1:1 coins.",
        }),
      }),
    ),
    wallet: DepositWalletSchema.nullable(),
    amount_received: DecimalSchema.nullable(),
    refunds: z.array(
      z.object({
        amount: DecimalSchema,
        coin: CoinSchema,
        reason: z.enum(REFUND_REASONS),
        status: z.enum(REFUND_STATUSES),
      }),
    ),
  })
  .meta({ id: "CheckoutView" });

export const HealthSchema = z
  .object({
    status: z.enum(["ok", "unavailable"]),
    database: z.enum(["ok", "unavailable"]).optional(),
    nats: z.enum(["ok", "unavailable"]).optional(),
  })
  .meta({ id: "Health" });

export const SignupSchema = z
  .object({ object: z.literal("signup"), email: z.string(), verification: z.literal("code_sent") })
  .meta({ id: "Signup" });

export const EmailVerificationSchema = z
  .object({ object: z.literal("email_verification"), email: z.string(), verified: z.literal(true) })
  .meta({ id: "EmailVerification" });

export const TokenSchema = z.object({ token: z.string() }).meta({ id: "Token" });

export const MerchantSchema = z
  .object({
    id: z.string(),
    object: z.literal("merchant"),
    email: z.string(),
    business_name: z.string(),
    created_at: TimestampSchema,
  })
  .meta({ id: "Merchant" });

/** A secret in the answer that creates it, and never again. */
const shownOnce = (prefix: RegExp) => z.string().regex(prefix).meta({ description: "Shown once." });

/** Where a payout wallet is: its chain and its address there. */
const walletPlace = { chain: ChainSchema, address: z.string() };

const apiKeypairFields = {
  id: z.string(),
  object: z.literal("api_keypair"),
  active: z.boolean(),
  test_key_prefix: z.string(),
  live_key_prefix: z.string(),
  scopes: z
    .array(z.enum(SCOPES))
    .nullable()
    .meta({ description: "What the keys may do; null: every scope, including scopes added later." }),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
};
export const ApiKeypairSchema = z.object(apiKeypairFields).meta({ id: "ApiKeypair" });
export const CreatedApiKeypairSchema = z
  .object({
    ...apiKeypairFields,
    test_key: shownOnce(/^gw_test_/),
    live_key: shownOnce(/^gw_live_/),
  })
  .meta({ id: "CreatedApiKeypair" });
export const ApiKeypairListSchema = listOf(ApiKeypairSchema, "ApiKeypairList");

export const PayoutWalletSchema = z
  .object({
    object: z.literal("payout_wallet"),
    ...walletPlace,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({ id: "PayoutWallet" });
export const SetPayoutWalletAnswerSchema = z
  .object({
    ...PayoutWalletSchema.shape,
    effective_at: TimestampSchema.nullable().meta({
      description: "When live payouts may start going here (after the signer's delay); null without one.",
    }),
  })
  .meta({ id: "LinkedPayoutWallet" });
export const PayoutWalletListSchema = listOf(PayoutWalletSchema, "PayoutWalletList");

export const PayoutWalletCodeSchema = z
  .object({
    object: z.literal("payout_wallet_code"),
    ...walletPlace,
    sent_to: z.string(),
    expires_at: TimestampSchema,
  })
  .meta({ id: "PayoutWalletCode" });

export const PayoutDestinationSchema = z
  .object({
    object: z.literal("payout_destination"),
    chain: ChainSchema,
    mode,
    address: z.string(),
    linked: z.boolean().meta({ description: "The payout wallet: scheduled payouts go here." }),
    status: z.enum(["pending", "active", "cancelled"]),
    requested_at: TimestampSchema,
    effective_at: TimestampSchema,
    cancelled_at: TimestampSchema.nullable(),
  })
  .meta({ id: "PayoutDestination" });
export const PayoutDestinationListSchema = listOf(PayoutDestinationSchema, "PayoutDestinationList");

export const WebhookEndpointSchema = z
  .object({
    id: z.string().regex(/^whk_/),
    url: z.string(),
    is_test: z.boolean(),
    events: z.array(z.union([EventTypeSchema, z.literal("*")])).meta({
      description: '`["*"]`: every event type, including those added later.',
    }),
    description: z.string().nullable(),
    created_at: TimestampSchema,
  })
  .meta({ id: "WebhookEndpoint" });
export const CreatedWebhookEndpointSchema = z
  .object({
    ...WebhookEndpointSchema.shape,
    secret: shownOnce(/^whsec_/),
  })
  .meta({ id: "CreatedWebhookEndpoint" });
export const WebhookEndpointListSchema = listOf(WebhookEndpointSchema, "WebhookEndpointList");
export const DeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: "Deleted" });

export const DeliveryAttemptSchema = z
  .object({
    attempt: z.number().int(),
    started_at: TimestampSchema,
    status_code: z.number().int().nullable(),
    latency_ms: z.number().int().nullable(),
    response_excerpt: z.string().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: "DeliveryAttempt" });
export const WebhookDeliverySchema = z
  .object({
    id: z.string(),
    endpoint_id: z.string(),
    event_id: z.string(),
    event_type: EventTypeSchema,
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    next_attempt_at: TimestampSchema.nullable().meta({ description: "Set while the delivery is pending." }),
    created_at: TimestampSchema,
    last_attempt_at: TimestampSchema.nullable(),
    last_status_code: z.number().int().nullable(),
    attempt_log: z.array(DeliveryAttemptSchema),
  })
  .meta({ id: "WebhookDelivery" });
export const WebhookDeliveryListSchema = listOf(WebhookDeliverySchema, "WebhookDeliveryList");

export const DashboardPaymentSchema = z
  .object({
    payment: PaymentSchema,
    events: z.array(
      z.object({
        id: z.string(),
        object: z.literal("event"),
        type: EventTypeSchema,
        created_at: TimestampSchema,
        data: z.unknown(),
      }),
    ),
  })
  .meta({ id: "DashboardPayment" });

/** An event as webhooks carry it (docs/webhooks.md), and as the events API answers it. */
export const EventSchema = z
  .object({
    id: z.string().regex(/^evt_/),
    type: EventTypeSchema,
    created_at: TimestampSchema,
    is_test: z.boolean(),
    data: z.record(z.string(), z.unknown()).meta({
      description: "`{payment}`, `{payout}` or, for `webhook.test`, `{webhook_endpoint: {id, url}}`.",
    }),
  })
  .meta({ id: "Event" });
export const EventListSchema = listOf(EventSchema, "EventList");

export const DashboardOverviewSchema = z
  .object({
    object: z.literal("dashboard_overview"),
    mode,
    volume: z
      .array(z.object({ day: z.string(), completed: z.number().int(), usd_value: DecimalSchema }))
      .meta({ description: "Completed payments per UTC day of creation, the last 30 days, oldest first." }),
    by_status: z.record(PaymentStatusSchema, z.number().int()).meta({
      description: "Payments created in the last 30 days, by status.",
    }),
    balances: z.array(
      z.object({ chain: ChainSchema, coin: CoinSchema, available: DecimalSchema, pending: DecimalSchema }),
    ),
    failures: z
      .array(
        z.object({
          kind: z.enum(["payment", "payout", "webhook_delivery"]),
          id: z
            .string()
            .meta({ description: "The payment's, the payout's, or the delivery's endpoint's id." }),
          occurred_at: TimestampSchema,
          summary: z.string(),
        }),
      )
      .meta({ description: "The newest that need the merchant, at most 10." }),
  })
  .meta({ id: "DashboardOverview" });

export const PaymentTransactionSchema = z
  .object({
    kind: z.enum(["deposit", "sweep", "refund"]),
    chain: ChainSchema,
    txid: z.string(),
    coin: CoinSchema,
    amount: DecimalSchema.nullable(),
  })
  .meta({ id: "PaymentTransaction" });
export const PaymentTransactionListSchema = listOf(PaymentTransactionSchema, "PaymentTransactionList");

export const PayoutSchema = z
  .object({
    id: z.string().regex(/^po_/),
    object: z.literal("payout"),
    status: z.enum(PAYOUT_STATUSES),
    amount: DecimalSchema,
    network_fee: DecimalSchema.meta({
      description: "What the network costs, taken from `amount`; zero for the scheduled payout of the day.",
    }),
    net_amount: DecimalSchema,
    coin: z.enum(PAYOUT_COINS),
    chain: ChainSchema,
    destination: z.string(),
    transaction_hash: z.string().nullable(),
    kind: z.enum(PAYOUT_KINDS),
    mode,
    is_test: z.boolean(),
    simulated: z.boolean(),
    failure_reason: z.string().nullable(),
    created_at: TimestampSchema,
    completed_at: TimestampSchema.nullable(),
  })
  .meta({ id: "Payout" });
export const PayoutListSchema = listOf(PayoutSchema, "PayoutList");

export const PayoutScheduleSchema = z
  .object({
    object: z.literal("payout_schedule"),
    mode,
    hour: z.number().int().min(0).max(23),
    enabled: z.boolean(),
    minimum_amount: DecimalSchema,
    next_run_at: TimestampSchema.nullable(),
    last_run_at: TimestampSchema.nullable(),
  })
  .meta({ id: "PayoutSchedule" });

export const PayoutContextSchema = z
  .object({
    object: z.literal("payout_context"),
    mode,
    total_available: z.number().meta({ description: "USDC and USDT available on every chain (1:1 USD)." }),
    balances: z.array(
      z.object({
        chain: ChainSchema,
        available: z.number(),
        pending: z.number().meta({ description: "Reserved by payouts not completed yet." }),
        coins: z.array(
          z.object({
            coin: CoinSchema,
            available: DecimalSchema,
            pending: DecimalSchema,
            payable: z.boolean(),
          }),
        ),
        manual_payout_network_fee: DecimalSchema,
      }),
    ),
    wallets: z.array(z.object(walletPlace)),
    schedule: PayoutScheduleSchema.nullable(),
  })
  .meta({ id: "PayoutContext" });

export const PayoutCodeSchema = z
  .object({
    object: z.literal("payout_code"),
    mode,
    chain: ChainSchema,
    destination_address: z.string(),
    sent_to: z.string(),
    expires_at: TimestampSchema,
  })
  .meta({ id: "PayoutCode" });

/** Same members both ways: what the schema admits is exactly the contracts' type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
export type ContractsAgree = [
  Assert<Same<z.output<typeof DepositWalletSchema>, DepositWallet>>,
  Assert<Same<z.output<typeof PayoutSchema>, Payout>>,
  Assert<Same<z.output<typeof WebhookEndpointSchema>, WebhookEndpoint>>,
  Assert<Same<z.output<typeof WebhookDeliverySchema>, WebhookDelivery>>,
  Assert<Same<z.output<typeof DeliveryAttemptSchema>, DeliveryAttempt>>,
];
