// The date range of an export: `from` (inclusive) and `to` (exclusive), ISO 8601, at most a year.
import { GatewayError } from "@gateway/errors";
import { z } from "zod";

/** A calendar year and its leap day: 2024-01-01 to 2025-01-01 is a year. */
export const MAX_EXPORT_DAYS = 366;
const DAY_MS = 86_400_000;
/** When `from` is absent: this many days before `to`. */
const DEFAULT_DAYS = 30;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A date (midnight UTC) or a date-time with its zone; a date-time without one would mean the
 * server's clock zone, so it is refused. Undefined when not a real instant (2026-02-30).
 */
export function parseInstant(text: string): Date | undefined {
  const date = DATE.exec(text) ?? DATE_TIME.exec(text);
  if (!date) return undefined;
  const [, year, month, day] = date;
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (calendar.toISOString().slice(0, 10) !== `${year}-${month}-${day}`) return undefined;
  const instant = new Date(DATE.test(text) ? `${text}T00:00:00Z` : text);
  return Number.isNaN(instant.getTime()) ? undefined : instant;
}

export const instantField = z
  .string()
  .max(40)
  .refine((text) => parseInstant(text) !== undefined, {
    message: "must be an ISO 8601 date (2026-01-31) or date-time with its zone (2026-01-31T08:00:00Z).",
  })
  .optional();

/** `to` defaults to now and `from` to 30 days before `to`. Inverted, empty or over a year: 400. */
export function exportRange(query: { from?: string | undefined; to?: string | undefined }, now = new Date()) {
  const to = query.to === undefined ? now : parseInstant(query.to)!;
  const from =
    query.from === undefined ? new Date(to.getTime() - DEFAULT_DAYS * DAY_MS) : parseInstant(query.from)!;
  if (from.getTime() >= to.getTime()) {
    throw new GatewayError("parameter_invalid", { param: "to", message: "`to` must be after `from`." });
  }
  if (to.getTime() - from.getTime() > MAX_EXPORT_DAYS * DAY_MS) {
    throw new GatewayError("parameter_invalid", {
      param: "from",
      message: `An export covers at most ${MAX_EXPORT_DAYS} days; split the range.`,
    });
  }
  return { from, to };
}
