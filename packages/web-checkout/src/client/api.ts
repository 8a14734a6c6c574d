// The checkout's calls to the public checkout API of its own payment.
import { paymentId } from "./elements.js";
import { noteServerClock } from "./state.js";

export const apiBase = `/payments/checkout/${encodeURIComponent(paymentId)}`;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `chk_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export async function api<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  const init: RequestInit = { method, headers, cache: "no-store", credentials: "omit" };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    // A retried click must not act twice.
    headers["idempotency-key"] = idempotencyKey();
    init.body = JSON.stringify(body);
  }
  const sentAt = Date.now();
  const response = await fetch(apiBase + path, init);
  noteServerClock(response.headers.get("date"), sentAt, Date.now());
  const payload: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const retryAfter = Number(response.headers.get("retry-after"));
    const error = (payload as { error?: { message?: string } } | null)?.error;
    const message = error?.message ?? `The request failed (HTTP ${response.status}).`;
    throw new ApiError(response.status, message, Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined);
  }
  return payload as T;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
