import { randomUUID } from "node:crypto";
import { ConnectionError, errorFromResponse, type GatewayApiError } from "./errors.js";

export interface HttpOptions {
  baseUrl: string;
  apiKey?: string;
  /** Retries after the first attempt, on 429, 5xx and network errors. */
  maxRetries: number;
  timeoutMs: number;
  fetch: typeof fetch;
  /** Base of the exponential backoff when no Retry-After is given. */
  retryBaseMs: number;
  /** A success's body as JSON (the default) or as text (CSV exports). */
  parse?: "json" | "text";
}

export interface RequestOptions {
  /** Overrides the generated key; the same key is reused by every retry of this call. */
  idempotencyKey?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One JSON request with retries. Every POST carries an Idempotency-Key (generated unless given)
 * that stays the same across retries, so a retry after a lost response never creates twice.
 */
export async function request<T>(
  http: HttpOptions,
  method: "GET" | "POST" | "DELETE" | "PUT",
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (http.apiKey) headers["x-api-key"] = http.apiKey;
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method === "POST") headers["idempotency-key"] = options.idempotencyKey ?? randomUUID();

  let lastError: GatewayApiError | undefined;
  for (let attempt = 0; attempt <= http.maxRetries; attempt++) {
    let response: Response;
    try {
      response = await http.fetch(http.baseUrl.replace(/\/$/, "") + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: options.signal
          ? AbortSignal.any([options.signal, AbortSignal.timeout(http.timeoutMs)])
          : AbortSignal.timeout(http.timeoutMs),
      });
    } catch (cause) {
      if (options.signal?.aborted) throw cause;
      lastError = new ConnectionError(
        `request to ${path} failed: ${String(cause)}`,
        0,
        "api_connection_error",
        "connection_failed",
        undefined,
        undefined,
        { cause },
      );
      if (attempt < http.maxRetries) await sleep(backoff(http, attempt, null));
      continue;
    }
    const text = await response.text();
    if (response.ok && http.parse === "text") return text as T;
    const parsed = text ? safeJson(text) : undefined;
    if (response.ok) return parsed as T;
    lastError = errorFromResponse(response.status, parsed);
    const retryable = response.status === 429 || response.status >= 500;
    if (!retryable || attempt === http.maxRetries) throw lastError;
    await sleep(backoff(http, attempt, response.headers.get("retry-after")));
  }
  throw (
    lastError ??
    new ConnectionError("request failed", 0, "api_connection_error", "connection_failed", undefined)
  );
}

/** A GET answered with text (a CSV export): the same retries and errors as `request`. */
export async function requestText(
  http: HttpOptions,
  path: string,
  options: RequestOptions = {},
): Promise<string> {
  return request<string>({ ...http, parse: "text" }, "GET", path, undefined, options);
}

/** Retry-After (whole seconds) when the server gave one; else exponential with jitter. */
export function backoff(
  http: Pick<HttpOptions, "retryBaseMs">,
  attempt: number,
  retryAfter: string | null,
): number {
  const seconds = retryAfter !== null ? Number(retryAfter) : Number.NaN;
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const base = http.retryBaseMs * 2 ** attempt;
  return base / 2 + Math.random() * (base / 2);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function query(params: Record<string, string | number | undefined>): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined) as [string, string | number][];
  if (entries.length === 0) return "";
  return `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
}
