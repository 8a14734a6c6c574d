import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { ResolvedTarget } from "@gateway/webhook-endpoints";

const EXCERPT_BYTES = 1024;

export interface PostResult {
  /** Null when no response arrived. */
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

export interface WebhookHttpClient {
  post(
    target: ResolvedTarget,
    headers: Record<string, string>,
    body: string,
    timeoutMs: number,
  ): Promise<PostResult>;
  close(): void;
}

interface Agents {
  http: http.Agent;
  https: https.Agent;
}

interface Post {
  target: ResolvedTarget;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

type Finish = (result: Omit<PostResult, "latencyMs">) => void;

/**
 * One POST, no redirects (node:http never follows them; a 3xx is a failed attempt). The socket goes
 * to the address the URL policy checked: the lookup hook hands it over instead of asking DNS again.
 * Keep-alive pools are per host:port, and a pooled socket stays bound to the address it was
 * checked for.
 */
export function createWebhookHttpClient({ maxSocketsPerHost = 64 } = {}): WebhookHttpClient {
  // Idle sockets close after 4 s, before common servers' 5 s keep-alive timeout, so we rarely
  // write to a socket the other side is closing.
  const agentOptions = { keepAlive: true, maxSockets: maxSocketsPerHost, timeout: 4_000 };
  const agents: Agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  return {
    post: (target, headers, body, timeoutMs) => post(agents, { target, headers, body, timeoutMs }, true),
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function post(agents: Agents, attempt: Post, retryStaleSocket: boolean): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { timeoutMs } = attempt;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish: Finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const request = openRequest(agents, attempt, (response) => readResponse(response, finish));
    // The whole exchange, connect to last byte, must fit in the timeout (10 s in production).
    const timer = setTimeout(() => {
      finish({ statusCode: null, responseExcerpt: null, error: `timed out after ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on("error", (err) => {
      const code = (err as { code?: string }).code;
      // A kept-alive socket that the server closed meanwhile fails before the request reached
      // it: try once more on a fresh connection, within what is left of the timeout.
      if (
        retryStaleSocket &&
        !settled &&
        request.reusedSocket &&
        (code === "ECONNRESET" || code === "EPIPE")
      ) {
        settled = true;
        clearTimeout(timer);
        const retry = post(agents, { ...attempt, timeoutMs: Math.max(timeoutMs - elapsed(), 1) }, false);
        resolve(retry.then((result) => ({ ...result, latencyMs: elapsed() })));
        return;
      }
      finish({ statusCode: null, responseExcerpt: null, error: describe(err) });
    });
    request.end(attempt.body);
  });
}

function openRequest(
  agents: Agents,
  { target, headers, body }: Post,
  onResponse: (response: http.IncomingMessage) => void,
): http.ClientRequest {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const { url } = target;
  const isHttps = url.protocol === "https:";
  return (isHttps ? https : http).request(
    {
      protocol: url.protocol,
      hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port || (isHttps ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: "POST",
      agent: isHttps ? agents.https : agents.http,
      lookup: pinned,
      headers: { ...headers, "content-length": Buffer.byteLength(body).toString() },
    },
    onResponse,
  );
}

function readResponse(response: http.IncomingMessage, finish: Finish): void {
  const chunks: Buffer[] = [];
  let size = 0;
  response.on("data", (chunk: Buffer) => {
    // Keep only the excerpt; the rest is drained so the socket can be reused.
    if (size < EXCERPT_BYTES) chunks.push(chunk.subarray(0, EXCERPT_BYTES - size));
    size += chunk.length;
  });
  response.on("end", () =>
    finish({
      statusCode: response.statusCode ?? null,
      responseExcerpt: Buffer.concat(chunks).toString("utf8"),
      error: null,
    }),
  );
  response.on("error", (err) =>
    finish({ statusCode: response.statusCode ?? null, responseExcerpt: null, error: describe(err) }),
  );
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return (e.code ? `${e.code}: ` : "") + (e.message ?? String(err)).slice(0, 300);
}
