// Request fields several operations share, as zod schemas. A field the domain parses (a
// currency, a chain, an address) reports the domain's own error code through its issue.
import { MODES } from "@gateway/contracts";
import { MoneyError } from "@gateway/domain";
import { type ErrorCode, GatewayError } from "@gateway/errors";
import { z } from "zod";

/**
 * `input`, then the domain's `parse`, whose result is `output`: a MoneyError becomes an issue
 * carrying the error's code (e.g. `chain_unsupported`), which validation answers with that code
 * and the field as `param`. Requests are documented by `input`, parsed values by `output`.
 */
export function parsedBy<I extends z.ZodType, O extends z.ZodType>(
  input: I,
  parse: (value: z.output<I>) => z.input<O>,
  output: O,
) {
  const parsed = input.transform((value, ctx): z.input<O> => {
    try {
      return parse(value);
    } catch (err) {
      if (!(err instanceof MoneyError)) throw err;
      if (err.code === "price_unavailable") throw new GatewayError("price_unavailable", { cause: err });
      ctx.issues.push({ code: "custom", message: err.message, input: value, params: { code: err.code } });
      return z.NEVER;
    }
  });
  return parsed.pipe(output as unknown as z.ZodType<z.output<O>, Awaited<z.input<O>>>);
}

/**
 * For the domain's checks that need more than one field or a live price (a payment's limits,
 * an amount in its currency): a MoneyError becomes a 400 with its code and this `param`.
 */
export function withMoneyParam<T>(param: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof MoneyError) {
      if (err.code === "price_unavailable") throw new GatewayError("price_unavailable", { cause: err });
      throw new GatewayError(err.code, { param, message: err.message, cause: err });
    }
    throw err;
  }
}

/** An issue with a documented code other than the field's own, from a refinement. */
export function codedIssue(code: ErrorCode, message: string) {
  return { message, params: { code } };
}

/** Query `limit`: 1 to 100 (query values arrive as text; digits only). */
export const pageLimit = z
  .string()
  .regex(/^\d{1,3}$/, "must be an integer from 1 to 100.")
  .pipe(z.coerce.number<string>().int().min(1).max(100))
  .optional();

/** A query value used as it is: an id, a cursor. */
export const queryText = z.string().min(1).max(200);

export const cursor = queryText.optional().meta({ description: "Cursor: the last id of the previous page." });

export const modeField = z.enum(MODES);

/** An http(s) URL a browser is sent to. */
export const httpUrl = z
  .string()
  .max(2048)
  .superRefine((value, ctx) => {
    let protocol: string;
    try {
      protocol = new URL(value).protocol;
    } catch {
      ctx.addIssue({ code: "custom", input: value, ...codedIssue("url_invalid", "The URL is not valid.") });
      return;
    }
    if (protocol !== "https:" && protocol !== "http:")
      ctx.addIssue({
        code: "custom",
        input: value,
        ...codedIssue("url_invalid", "The URL must be http or https."),
      });
  });

/** The body of an operation that takes no fields: any field is `parameter_unknown`. */
export const emptyBody = z.strictObject({});

/** The path of one payment: payment ids are UUIDs, the one id without a type prefix. */
export const paymentIdParams = z.object({ id: z.string().meta({ description: "Payment id (UUID)." }) });
