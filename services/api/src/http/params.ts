import { MoneyError } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";

/** Refuses fields a request may not carry, naming the first one. */
export function rejectUnknown(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) {
      throw new GatewayError("parameter_unknown", { param: key, message: `Unknown parameter: ${key}.` });
    }
  }
}

export function required<T>(body: Record<string, unknown>, param: string): T {
  const value = body[param];
  if (value === undefined || value === null || value === "") {
    throw new GatewayError("parameter_missing", { param, message: `Missing required parameter: ${param}.` });
  }
  return value as T;
}

export function optionalString(
  body: Record<string, unknown>,
  param: string,
  maxLength: number,
): string | null {
  const value = body[param];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length > maxLength) {
    throw new GatewayError("parameter_invalid", {
      param,
      message: `${param} must be a string of at most ${maxLength} characters.`,
    });
  }
  return value;
}

export function optionalInteger(
  body: Record<string, unknown>,
  param: string,
  min: number,
  max: number,
): number | null {
  const value = body[param];
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new GatewayError("parameter_invalid", {
      param,
      message: `${param} must be an integer from ${min} to ${max}.`,
    });
  }
  return value;
}

export function httpUrl(value: string | null, param: string): string | null {
  if (value === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new GatewayError("url_invalid", { param });
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new GatewayError("url_invalid", { param, message: `${param} must be an http or https URL.` });
  }
  return value;
}

/** Money errors from the domain become 400s with the domain's code and the request's param. */
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

/** Query parameter `limit` (1..100, default 10). */
export function pageLimit(raw: unknown): number {
  if (raw === undefined) return 10;
  const n = typeof raw === "string" && /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 100) {
    throw new GatewayError("parameter_invalid", {
      param: "limit",
      message: "limit must be an integer from 1 to 100.",
    });
  }
  return n;
}

export function queryString(raw: unknown, param: string): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 200) {
    throw new GatewayError("parameter_invalid", { param });
  }
  return raw;
}
