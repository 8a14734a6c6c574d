// Calls to the merchant API with the key: a network failure, a 5xx or a 429 is retried with
// backoff (and said so); a refused key or an unreachable API ends in one plain CliError.
import { setTimeout as sleep } from "node:timers/promises";
import { CliError } from "./cli-error.js";
import type { Output } from "./output.js";

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string;
  out: Output;
  /** Retries after the first attempt; Infinity for a command that follows the API for ever. */
  retries?: number;
  /** The first wait; each retry doubles it, up to 10 s. */
  backoffMs?: number;
  timeoutMs?: number;
}

/** An answer of the API with its documented error body (docs/errors.md). */
export class ApiError extends Error {
  override readonly name = "ApiError";

  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

const MAX_BACKOFF_MS = 10_000;

export class ApiClient {
  readonly #baseUrl: string;
  readonly #apiKey: string;
  readonly #out: Output;
  readonly #retries: number;
  readonly #backoffMs: number;
  readonly #timeoutMs: number;

  constructor(options: ApiClientOptions) {
    this.#baseUrl = options.baseUrl;
    this.#apiKey = options.apiKey;
    this.#out = options.out;
    this.#retries = options.retries ?? 4;
    this.#backoffMs = options.backoffMs ?? 500;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>("GET", path);
  }

  post<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
    return this.request<T>("POST", path, body, headers);
  }

  /**
   * Throws CliError for a refused key and for an API still unreachable after the retries, and
   * ApiError for any other 4xx, which the command may turn into its own words.
   */
  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#attempt(method, path, body, headers);
      if (outcome.ok) return outcome.value as T;
      if (attempt >= this.#retries) {
        throw new CliError(
          outcome.kind === "network"
            ? `Could not reach the API at ${this.#baseUrl} (GATEWAY_BASE_URL): ${outcome.reason}.`
            : `The API at ${this.#baseUrl} keeps failing: ${outcome.reason}.`,
        );
      }
      const wait = Math.min(
        MAX_BACKOFF_MS,
        outcome.retryAfterMs ?? this.#backoffMs * 2 ** Math.min(attempt, 10),
      );
      const of = Number.isFinite(this.#retries) ? ` of ${this.#retries}` : "";
      this.#out.warn(
        `${outcome.kind === "network" ? `Could not reach ${this.#baseUrl}` : "The API answered"} (${outcome.reason}); trying again after ${seconds(wait)} (retry ${attempt + 1}${of}).`,
      );
      await sleep(wait);
    }
  }

  async #attempt(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<
    | { ok: true; value: unknown }
    | { ok: false; kind: "network" | "server"; reason: string; retryAfterMs?: number }
  > {
    let response: Response;
    try {
      response = await fetch(`${this.#baseUrl}${path}`, {
        method,
        headers: {
          "x-api-key": this.#apiKey,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (err) {
      return { ok: false, kind: "network", reason: networkReason(err) };
    }
    const text = await response.text().catch(() => "");
    const parsed = parseJson(text) as { error?: { code?: string; message?: string } } | undefined;
    if (response.ok && parsed !== undefined) return { ok: true, value: parsed };
    if (response.ok)
      throw new CliError(
        `${this.#baseUrl} answered ${method} ${path} without JSON: is GATEWAY_BASE_URL a Gateway API?`,
      );
    const code = parsed?.error?.code;
    const message = parsed?.error?.message ?? `HTTP ${response.status}`;
    if (response.status === 429 || response.status >= 500) {
      const retryAfter = Number(response.headers.get("retry-after"));
      return {
        ok: false,
        kind: "server",
        reason: `${response.status}${code ? ` ${code}` : ""}`,
        ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
      };
    }
    if (response.status === 401)
      throw new CliError(`The API refused the key in GATEWAY_API_KEY (${code ?? "401"}): ${message}`);
    if (code === undefined)
      throw new CliError(
        `${this.#baseUrl} answered ${response.status} to ${method} ${path}: is GATEWAY_BASE_URL a Gateway API?`,
      );
    throw new ApiError(response.status, code, message);
  }
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** fetch's TypeError says "fetch failed"; the words are in its cause's code. */
export function networkReason(err: unknown): string {
  const e = err as { name?: string; cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError") return "no answer in time";
  const code = e.cause?.code;
  const words: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ENOTFOUND: "no such host",
    EAI_AGAIN: "the host name could not be resolved",
    ECONNRESET: "the connection was reset",
    ETIMEDOUT: "the connection timed out",
    EHOSTUNREACH: "the host is unreachable",
  };
  return (code && words[code]) ?? e.cause?.message ?? (err as Error).message ?? "network error";
}
