// One HTTP server standing in for three public price feeds — Pyth Hermes, Coinbase and Kraken —
// each under its own path prefix, answering in that feed's real format. A control API moves
// prices and breaks sources (down, garbage, a source's own price, Pyth publish lag), so tests and
// `npm start` can exercise every rule of the price service without the internet.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  coinbaseSpot,
  FEED_COINS,
  type FeedCoin,
  hermesLatest,
  KRAKEN_PAIRS,
  krakenTicker,
  PYTH_FEED_IDS,
} from "./feeds.js";

export const SOURCE_NAMES = ["pyth", "coinbase", "kraken"] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

/** up: answers; down: 503; garbage: 200 with a body that is not the feed's JSON. */
export type SourceMode = "up" | "down" | "garbage";

export interface SourceState {
  mode: SourceMode;
  /** This source's own price per coin (any string, even "-5" or "abc"), instead of the shared one. */
  usd: Partial<Record<FeedCoin, string>>;
  /** Pyth only: publish_time this many seconds in the past. */
  lagSeconds: number;
}

export interface PriceServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Starting prices, USD per coin as decimal strings. */
  prices?: Partial<Record<FeedCoin, string>>;
}

export interface PriceServer {
  url: string;
  /** Base URLs to configure as PRICE_PYTH_URL, PRICE_COINBASE_URL and PRICE_KRAKEN_URL. */
  sourceUrls: Record<SourceName, string>;
  setPrice(coin: FeedCoin, usd: string): void;
  setSource(name: SourceName, patch: Partial<SourceState>): void;
  /** Every source up, no overrides, the starting prices. */
  reset(): void;
  /** Feed requests answered so far, per source. */
  requestCount(name: SourceName): number;
  state(): { prices: Record<FeedCoin, string>; sources: Record<SourceName, SourceState> };
  close(): Promise<void>;
}

export const DEFAULT_PRICES: Record<FeedCoin, string> = { SOL: "150.00", SUI: "3.50" };
const PLAIN_DECIMAL = /^\d{1,12}(\.\d{1,12})?$/;
const MAX_BODY = 16 * 1024;

function freshSources(): Record<SourceName, SourceState> {
  return {
    pyth: { mode: "up", usd: {}, lagSeconds: 0 },
    coinbase: { mode: "up", usd: {}, lagSeconds: 0 },
    kraken: { mode: "up", usd: {}, lagSeconds: 0 },
  };
}

class ControlError extends Error {}

export async function createPriceServer(options: PriceServerOptions = {}): Promise<PriceServer> {
  const start = { ...DEFAULT_PRICES, ...options.prices };
  let prices: Record<FeedCoin, string> = { ...start };
  let sources = freshSources();
  const counts: Record<SourceName, number> = { pyth: 0, coinbase: 0, kraken: 0 };

  const priceFor = (name: SourceName, coin: FeedCoin) => sources[name].usd[coin] ?? prices[coin];

  function setPrice(coin: FeedCoin, usd: string) {
    if (!FEED_COINS.includes(coin)) throw new ControlError(`coin must be one of ${FEED_COINS.join(", ")}`);
    if (!PLAIN_DECIMAL.test(usd))
      throw new ControlError("usd must be a plain positive decimal such as 151.25");
    prices = { ...prices, [coin]: usd };
  }

  function setSource(name: SourceName, patch: Partial<SourceState>) {
    if (!SOURCE_NAMES.includes(name))
      throw new ControlError(`source must be one of ${SOURCE_NAMES.join(", ")}`);
    if (patch.mode !== undefined && !["up", "down", "garbage"].includes(patch.mode)) {
      throw new ControlError("mode must be up, down or garbage");
    }
    if (patch.lagSeconds !== undefined && !(Number.isInteger(patch.lagSeconds) && patch.lagSeconds >= 0)) {
      throw new ControlError("lag_seconds must be a whole number of seconds");
    }
    const current = sources[name];
    sources = {
      ...sources,
      [name]: {
        mode: patch.mode ?? current.mode,
        usd: patch.usd === undefined ? current.usd : { ...patch.usd },
        lagSeconds: patch.lagSeconds ?? current.lagSeconds,
      },
    };
  }

  function json(res: ServerResponse, status: number, body: unknown) {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(body));
  }

  /** Applies the source's mode; returns true when the request was answered already. */
  function broken(name: SourceName, res: ServerResponse): boolean {
    counts[name] += 1;
    const { mode } = sources[name];
    if (mode === "down") {
      res.writeHead(503, { "content-type": "text/plain" });
      res.end("Service Unavailable");
      return true;
    }
    if (mode === "garbage") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>Rate limited. Please try again later.</body></html>");
      return true;
    }
    return false;
  }

  function hermes(url: URL, res: ServerResponse) {
    if (broken("pyth", res)) return;
    const ids = [...url.searchParams.getAll("ids[]"), ...url.searchParams.getAll("ids")].map((id) =>
      id.toLowerCase().replace(/^0x/, ""),
    );
    const known = new Map<string, FeedCoin>(FEED_COINS.map((coin) => [PYTH_FEED_IDS[coin], coin]));
    const unknown = ids.filter((id) => !known.has(id));
    if (ids.length === 0) return json(res, 400, "Missing query parameter: ids[]");
    if (unknown.length > 0) return json(res, 404, `Price ids not found: ${unknown.join(", ")}`);
    const publishTime = Math.floor(Date.now() / 1000) - sources.pyth.lagSeconds;
    json(
      res,
      200,
      hermesLatest(ids.map((id) => ({ id, usd: priceFor("pyth", known.get(id)!), publishTime }))),
    );
  }

  function coinbase(pair: string, res: ServerResponse) {
    if (broken("coinbase", res)) return;
    const coin = FEED_COINS.find((c) => `${c}-USD` === pair.toUpperCase());
    if (!coin) return json(res, 404, { errors: [{ id: "not_found", message: "Invalid currency" }] });
    json(res, 200, coinbaseSpot(coin, priceFor("coinbase", coin)));
  }

  function kraken(url: URL, res: ServerResponse) {
    if (broken("kraken", res)) return;
    const pair = (url.searchParams.get("pair") ?? "").toUpperCase();
    const coin = FEED_COINS.find((c) => KRAKEN_PAIRS[c] === pair);
    if (!coin) return json(res, 200, { error: ["EQuery:Unknown asset pair"] });
    json(res, 200, krakenTicker(pair, priceFor("kraken", coin)));
  }

  async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
    let size = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) throw new ControlError("body too large");
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    const value: unknown = text ? JSON.parse(text) : {};
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new ControlError("body must be a JSON object");
    }
    return value as Record<string, unknown>;
  }

  async function control(req: IncomingMessage, url: URL, res: ServerResponse) {
    const parts = url.pathname.split("/").filter(Boolean); // ["control", what, name]
    if (req.method === "GET" && parts[1] === "state") return json(res, 200, state());
    if (req.method === "POST" && parts[1] === "reset") {
      reset();
      return json(res, 200, state());
    }
    if (req.method === "PUT" && parts[1] === "prices" && parts[2]) {
      const body = await readJson(req);
      setPrice(parts[2].toUpperCase() as FeedCoin, String(body.usd ?? ""));
      return json(res, 200, state());
    }
    if (req.method === "PUT" && parts[1] === "sources" && parts[2]) {
      const body = await readJson(req);
      const patch: Partial<SourceState> = {};
      if (body.mode !== undefined) patch.mode = body.mode as SourceMode;
      if (body.usd !== undefined) patch.usd = body.usd as SourceState["usd"];
      if (body.lag_seconds !== undefined) patch.lagSeconds = body.lag_seconds as number;
      setSource(parts[2] as SourceName, patch);
      return json(res, 200, state());
    }
    json(res, 404, { error: "no such control endpoint" });
  }

  function reset() {
    prices = { ...start };
    sources = freshSources();
  }

  function state() {
    return { prices: { ...prices }, sources: structuredClone(sources) };
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname;
    const handle = async () => {
      if (path === "/healthz") return json(res, 200, { ok: true });
      if (path.startsWith("/control/")) return control(req, url, res);
      if (req.method !== "GET") return json(res, 405, { error: "GET only" });
      if (path === "/pyth/v2/updates/price/latest") return hermes(url, res);
      const spot = /^\/coinbase\/v2\/prices\/([A-Za-z]+-[A-Za-z]+)\/spot$/.exec(path);
      if (spot) return coinbase(spot[1]!, res);
      if (path === "/kraken/0/public/Ticker") return kraken(url, res);
      json(res, 404, { error: "not found" });
    };
    handle().catch((err: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      json(res, err instanceof ControlError || err instanceof SyntaxError ? 400 : 500, {
        error: err instanceof Error ? err.message : String(err),
      });
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    sourceUrls: { pyth: `${url}/pyth`, coinbase: `${url}/coinbase`, kraken: `${url}/kraken` },
    setPrice,
    setSource,
    reset,
    requestCount: (name) => counts[name],
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
