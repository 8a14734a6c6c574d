import { ERROR_CODES } from "@gateway/errors";

/**
 * Why a response breaks the documented contract, or undefined when it keeps it: no 5xx, and
 * every 4xx body is exactly `{"error":{"type","code","message"[,"param"]}}` with a code from the
 * closed set, the type that code has, and the status that code maps to. The one addition allowed
 * is a top-level `message` repeating `error.message`: Solana Pay's wallets show that field
 * (the `WalletError` body of `/solana-pay/…`).
 */
export function contractViolation(status: number, text: string, method = "GET"): string | undefined {
  if (status >= 500) return `status ${status}: ${text.slice(0, 300)}`;
  if (status < 400 || method === "HEAD") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `status ${status} with a body that is not JSON: ${text.slice(0, 200)}`;
  }
  const keys = isObject(body) && "message" in body ? ["error", "message"] : ["error"];
  if (!isObject(body) || !sameKeys(body, keys)) return `not {"error":…}: ${text.slice(0, 200)}`;
  const error = body.error;
  if (!isObject(error)) return `error is not an object: ${text.slice(0, 200)}`;
  if ("message" in body && body.message !== error.message) return "message is not the error's message";
  const errorKeys = Object.keys(error).sort();
  const expected = "param" in error ? ["code", "message", "param", "type"] : ["code", "message", "type"];
  if (errorKeys.join() !== expected.join()) return `error has keys ${errorKeys.join()}`;
  const { code, type, message, param } = error;
  if (typeof code !== "string" || !Object.hasOwn(ERROR_CODES, code)) return `unknown code ${String(code)}`;
  const spec = ERROR_CODES[code as keyof typeof ERROR_CODES];
  if (spec.status !== status) return `code ${code} maps to ${spec.status}, answered ${status}`;
  if (spec.type !== type) return `code ${code} has type ${spec.type}, answered ${String(type)}`;
  if (typeof message !== "string" || message.length === 0) return "message is not a non-empty string";
  if (param !== undefined && typeof param !== "string") return "param is not a string";
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function sameKeys(v: Record<string, unknown>, keys: string[]): boolean {
  return Object.keys(v).sort().join() === [...keys].sort().join();
}
