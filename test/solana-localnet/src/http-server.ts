// Everything on the RPC port: JSON-RPC at `/`, the faucet, `/info`, health checks, the
// Helius-shaped webhook API and the test controls.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { RpcCode, RpcError } from "./errors.js";
import type { Coin } from "./faucet.js";
import { runRpcRequest } from "./rpc.js";
import { WebhookInputError, type Webhooks } from "./webhooks.js";

const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface HttpHandlers {
  readonly rpcMethods: Map<string, (params: readonly unknown[]) => unknown>;
  readonly webhooks: Webhooks;
  fund(owner: string, coin: Coin, amount: string): string;
  info(): object;
  /** Produces n slots at once; returns the slots after. */
  advanceSlots(count: number): { slot: number; finalizedSlot: number };
  /** When set, the webhook API wants `?api-key=` to match, as Helius does. */
  readonly apiKey?: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, "request body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req);
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "body is not JSON");
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export function createHttpServer(handlers: HttpHandlers): Server {
  const { webhooks } = handlers;

  async function rpc(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      sendJson(res, 200, {
        error: { code: RpcCode.parseError, message: "Parse error" },
        id: null,
        jsonrpc: "2.0",
      });
      return;
    }
    if (Array.isArray(body)) {
      const responses = body
        .map((entry) => runRpcRequest(handlers.rpcMethods, entry))
        .filter((r) => r !== null);
      sendJson(res, 200, responses);
      return;
    }
    sendJson(res, 200, runRpcRequest(handlers.rpcMethods, body));
  }

  async function webhookApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (handlers.apiKey !== undefined && url.searchParams.get("api-key") !== handlers.apiKey) {
      throw new HttpError(401, "invalid api key");
    }
    const id = decodeURIComponent(url.pathname.slice("/v0/webhooks".length).replace(/^\//, ""));
    if (id === "") {
      if (req.method === "GET") return sendJson(res, 200, webhooks.list());
      if (req.method === "POST") return sendJson(res, 200, webhooks.create(await readJson(req)));
      throw new HttpError(405, "method not allowed");
    }
    if (req.method === "GET") {
      const hook = webhooks.get(id);
      if (!hook) throw new HttpError(404, "webhook not found");
      return sendJson(res, 200, hook);
    }
    if (req.method === "PUT") {
      const hook = webhooks.update(id, await readJson(req));
      if (!hook) throw new HttpError(404, "webhook not found");
      return sendJson(res, 200, hook);
    }
    if (req.method === "DELETE") {
      if (!webhooks.remove(id)) throw new HttpError(404, "webhook not found");
      return sendJson(res, 200, {});
    }
    throw new HttpError(405, "method not allowed");
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname;
    if (path === "/" && req.method === "POST") return rpc(req, res);
    if ((path === "/healthz" || path === "/health") && req.method === "GET") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
      return;
    }
    if (path === "/info" && req.method === "GET") return sendJson(res, 200, handlers.info());
    if (path === "/faucet" && req.method === "POST") {
      const body = (await readJson(req)) as Record<string, unknown> | null;
      const owner = body?.["owner"];
      const coin = body?.["coin"];
      const amount = body?.["amount"];
      if (typeof owner !== "string" || typeof amount !== "string") {
        throw new HttpError(
          400,
          'expected {"owner": "<base58>", "coin": "USDC"|"USDT"|"SOL", "amount": "<decimal>"}',
        );
      }
      if (coin !== "USDC" && coin !== "USDT" && coin !== "SOL") {
        throw new HttpError(400, "coin must be USDC, USDT or SOL");
      }
      return sendJson(res, 200, { signature: handlers.fund(owner, coin, amount) });
    }
    if (path === "/v0/webhooks" || path.startsWith("/v0/webhooks/")) return webhookApi(req, res, url);
    if (path === "/control/slots" && req.method === "POST") {
      const body = (await readJson(req)) as { advance?: unknown } | null;
      const count = body?.advance;
      if (typeof count !== "number" || !Number.isInteger(count) || count < 0 || count > 1_000_000) {
        throw new HttpError(400, 'expected {"advance": <number of slots>}');
      }
      return sendJson(res, 200, handlers.advanceSlots(count));
    }
    if (path === "/control/webhooks") {
      if (req.method === "GET") {
        return sendJson(res, 200, { ...webhooks.controls(), deliveries: webhooks.deliveries() });
      }
      if (req.method === "POST") {
        const body = (await readJson(req)) as { drop?: number; duplicate?: number } | null;
        return sendJson(res, 200, webhooks.control(body ?? {}));
      }
    }
    throw new HttpError(404, "not found");
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      if (error instanceof HttpError) return sendJson(res, error.status, { error: error.message });
      if (error instanceof WebhookInputError) return sendJson(res, 400, { error: error.message });
      if (error instanceof RpcError) return sendJson(res, 400, { error: error.message, data: error.data });
      sendJson(res, 500, { error: error instanceof Error ? error.message : String(error) });
    });
  });
  // Keep-alive clients that block their event loop for a while (signing a batch) would
  // otherwise reuse a socket the server closed after Node's default 5 s.
  server.keepAliveTimeout = 65_000;
  return server;
}
