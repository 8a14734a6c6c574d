// The dashboard's calls to the JSON API of the same host, with the session token.
import { flash } from "./dom.js";
import { go } from "./navigation.js";
import { dropToken, token } from "./session.js";

interface ErrorBody {
  error?: { code?: string; message?: string; param?: string };
}

export class ApiError extends Error {
  readonly code: string | undefined;
  readonly param: string | undefined;

  constructor(
    readonly status: number,
    body: ErrorBody | null,
  ) {
    super(body?.error?.message ?? `Request failed (${status}).`);
    this.code = body?.error?.code;
    this.param = body?.error?.param;
  }
}

export async function api<T = unknown>(
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  const session = token();
  if (session) headers.authorization = `Bearer ${session}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data: unknown = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    if (response.status === 401 && session) {
      dropToken();
      flash("Your session has ended. Log in again.", "error");
      go("#/login");
    }
    throw new ApiError(response.status, data as ErrorBody | null);
  }
  return data as T;
}
