import type { Sql } from "@gateway/db";
import type { Mode } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import type { RequestHandler, Response } from "express";
import { hashApiKey, modeOfKey } from "./api-keys.js";
import { createKeypairCache, type KeypairCache } from "./keypair-cache.js";

export interface ApiKeyPrincipal {
  merchantId: string;
  keypairId: string;
  mode: Mode;
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
  let keypairs = caches.get(sql);
  if (!keypairs) {
    keypairs = createKeypairCache(sql);
    caches.set(sql, keypairs);
  }
  return keypairs;
}

export function requireApiKey(sql: Sql): RequestHandler {
  const cache = keypairCacheOf(sql);
  return async (req, res, next) => {
    try {
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
      } satisfies ApiKeyPrincipal;
      next();
    } catch (err) {
      next(err);
    }
  };
}

export function apiKeyPrincipal(res: Response): ApiKeyPrincipal {
  const principal = res.locals.apiKey as ApiKeyPrincipal | undefined;
  if (!principal) throw new Error("requireApiKey must run before this handler");
  return principal;
}
