// The payment link as the API answers it, defined once for the merchant API and the dashboard.
import { CURRENCIES } from "@gateway/contracts";
import { DecimalSchema, TimestampSchema } from "@gateway/contracts/payment-resource";
import { formatAmount } from "@gateway/domain";
import type { PaymentLinkRow } from "@gateway/payment-links";
import { z } from "zod";

export const PaymentLinkSchema = z
  .object({
    id: z.string().meta({ description: "`plink_…`" }),
    object: z.literal("payment_link"),
    url: z.string().meta({
      description:
        "Share this: each visit makes a fresh payment and sends the customer (303) to its checkout.",
    }),
    qr_code_url: z.string().meta({ description: "An SVG QR code of `url`." }),
    active: z.boolean(),
    amount: DecimalSchema,
    currency: z.enum(CURRENCIES),
    description: z.string().nullable(),
    redirect_url: z.string().nullable(),
    is_test: z.boolean(),
    payments_count: z.number().int().meta({ description: "Payments opened through the link." }),
    completed_count: z.number().int().meta({ description: "Of those, the completed ones." }),
    created_at: TimestampSchema,
    deactivated_at: TimestampSchema.nullable(),
  })
  .meta({ id: "PaymentLink" });

export const PaymentLinkListSchema = z
  .object({ object: z.literal("list"), data: z.array(PaymentLinkSchema), has_more: z.boolean() })
  .meta({ id: "PaymentLinkList" });

/** Where a link is opened: `{base}/pay/<id>`. */
export const paymentLinkUrl = (publicBaseUrl: string, id: string) => `${publicBaseUrl}/pay/${id}`;

export function toPaymentLinkResource(
  row: PaymentLinkRow,
  publicBaseUrl: string,
): z.input<typeof PaymentLinkSchema> {
  const url = paymentLinkUrl(publicBaseUrl, row.id);
  return {
    id: row.id,
    object: "payment_link",
    url,
    qr_code_url: `${url}/qr`,
    active: row.active,
    amount: formatAmount(BigInt(row.amount), row.currency),
    currency: row.currency,
    description: row.description,
    redirect_url: row.redirect_url,
    is_test: row.mode === "test",
    payments_count: row.payments_count,
    completed_count: row.completed_count,
    created_at: row.created_at.toISOString(),
    deactivated_at: row.deactivated_at?.toISOString() ?? null,
  };
}
