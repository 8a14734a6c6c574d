import type { Sql } from "@gateway/db";
import type { Mode } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import type { RequestHandler, Response } from "express";
import { route } from "../http/async-handler.js";
import { authenticator } from "../http/operation.js";
import { keptIn } from "../kept.js";
import { hashApiKey, modeOfKey } from "./api-keys.js";
import { createKeypairCache, type KeypairCache } from "./keypair-cache.js";
import { principalOf } from "./principal.js";

export interface ApiKeyPrincipal {
  merchantId: string;
  keypairId: string;
  mode: Mode;
  /** What the key may do (auth/permissions.ts, SCOPE_RULES); null is everything. */
  scopes: readonly string[] | null;
}

/**
 * Merchant server calls: the key is looked up by its hash, through a per-replica cache that every
 * change to a keypair empties on every replica (keypair-cache.ts): a keypair deactivated in the
 * dashboard is refused at once by the replica that deactivated it, and by the others as soon as
 * PostgreSQL's notification reaches them.
 */
/** One keypair cache (and one LISTEN) per pool, however many routers authenticate with it. */
const caches = new WeakMap<Sql, KeypairCache>();

export function keypairCacheOf(sql: Sql): KeypairCache {
  return keptIn(caches, sql, createKeypairCache);
}

export function requireApiKey(sql: Sql): RequestHandler {
  const cache = keypairCacheOf(sql);
  return authenticator(
    route(async (req, res, next) => {
      const header = req.headers["x-api-key"];
      const key = Array.isArray(header) ? header[0] : header;
      if (!key) throw new GatewayError("api_key_missing");
      const mode = modeOfKey(key);
      if (!mode) throw new GatewayError("api_key_invalid");
      const keypair = await cache.find(mode, hashApiKey(key));
      if (!keypair?.active) throw new GatewayError("api_key_invalid");
      res.locals.apiKey = {
        merchantId: keypair.merchant_id,
        keypairId: keypair.id,
        mode,
        scopes: keypair.scopes,
      } satisfies ApiKeyPrincipal;
      next();
    }),
  );
}

export function apiKeyPrincipal(res: Response): ApiKeyPrincipal {
  return principalOf(res, "apiKey", "requireApiKey");
}
