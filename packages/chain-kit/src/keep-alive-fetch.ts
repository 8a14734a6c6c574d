// A `fetch` for chain RPC clients over node:http(s) with kept-alive connections, lighter than
// Node's own per call (docs/solana.md, "RPC transport"). For calls answered once, not streams;
// what it covers and how it retries: docs/design-notes.md, "A fetch for chain RPC".
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import zlib from "node:zlib";

/**
 * How long an idle connection is kept when the server does not say. A server that announces its
 * own keep-alive timeout (`Keep-Alive: timeout=5`, as Node's servers do) is left a second early:
 * node's agent does that only when it has a timeout of its own (Node 20 ignores the hint
 * otherwise), and a connection the server closes just as a call goes out fails that call.
 */
const IDLE_CONNECTION_MS = 30_000;

/** Idle connections are kept per origin; concurrent calls open more, as fetch does. */
const agents = {
  "http:": new http.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
  "https:": new https.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
} as const;

/** A call that gets no answer for this long fails, as undici's fetch does by default (300 s). */
const IDLE_TIMEOUT_MS = 300_000;

/** Statuses whose Response may not carry a body. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

export const keepAliveFetch: typeof fetch = (input, init) => {
  const url = typeof input === "string" ? new URL(input) : input instanceof URL ? input : undefined;
  const body = init?.body;
  const plainBody =
    body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
  if (!url || !plainBody || (url.protocol !== "http:" && url.protocol !== "https:"))
    return fetch(input, init);
  return send(url, init ?? {}, body ?? undefined);
};

function send(url: URL, init: RequestInit, body: string | Uint8Array | undefined): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const headers = headerRecord(init.headers);
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    let request: http.ClientRequest;
    function attempt(retry: boolean) {
      let answered = false;
      request = transport.request(
        url,
        { method: init.method ?? "GET", headers, agent: agents[url.protocol as "http:" | "https:"] },
        (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          const stream = inflated(response);
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("error", fail);
          response.on("error", fail);
          // A connection closed before the whole body came.
          response.on("close", () => {
            if (!response.complete) fail(new Error(`the answer from ${url.origin} was cut short`));
          });
          stream.on("end", () => {
            if (settled) return;
            settled = true;
            signal?.removeEventListener("abort", onAbort);
            const status = response.statusCode ?? 0;
            resolve(
              new Response(NO_BODY.has(status) ? null : Buffer.concat(chunks), {
                status,
                statusText: response.statusMessage ?? "",
                headers: responseHeaders(response.headers),
              }),
            );
          });
        },
      );
      request.setTimeout(IDLE_TIMEOUT_MS, () =>
        fail(new Error(`no answer from ${url.origin} in ${IDLE_TIMEOUT_MS} ms`)),
      );
      request.on("error", (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed as the call went out: the call is sent
        // once more on a new connection, as Node's documentation advises (http, "reusedSocket").
        // Only calls to chain RPC nodes come here, and each of those is safe to repeat: a read,
        // or a transaction the chain knows by its signature or digest.
        if (!retry && !answered && !settled && request.reusedSocket && error.code === "ECONNRESET")
          return attempt(true);
        fail(error);
      });
      request.end(body);
    }
    function fail(error: unknown) {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      request.destroy();
      reject(new TypeError("fetch failed", { cause: error }));
    }
    function onAbort() {
      if (settled) return;
      settled = true;
      request.destroy();
      reject(signal!.reason);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    attempt(false);
  });
}

function headerRecord(headers: HeadersInit | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  if (!headers) return record;
  if (headers instanceof Headers || Array.isArray(headers)) {
    for (const [name, value] of headers instanceof Headers ? headers.entries() : headers) {
      record[name!.toLowerCase()] = value!;
    }
    return record;
  }
  for (const [name, value] of Object.entries(headers)) record[name.toLowerCase()] = value;
  return record;
}

function responseHeaders(headers: http.IncomingHttpHeaders): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) result.append(name, one);
  }
  return result;
}

/** The body as the server meant it: fetch inflates gzip, deflate and brotli answers. */
function inflated(response: http.IncomingMessage): Readable {
  switch (response.headers["content-encoding"]?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return response.pipe(zlib.createGunzip());
    case "deflate":
      return response.pipe(zlib.createInflate());
    case "br":
      return response.pipe(zlib.createBrotliDecompress());
    default:
      return response;
  }
}
