import type { Sql } from "@gateway/db";
import type { Mode } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import type { RequestHandler, Response } from "express";
import { hashApiKey, modeOfKey } from "./api-keys.js";

export interface ApiKeyPrincipal {
  merchantId: string;
  keypairId: string;
  mode: Mode;
}

/**
 * Merchant server calls: the key is looked up by its hash on every request (no cache), so a
 * keypair deactivated in the dashboard is refused at once by every replica.
 */
export function requireApiKey(sql: Sql): RequestHandler {
  return async (req, res, next) => {
    try {
      const header = req.headers["x-api-key"];
      const key = Array.isArray(header) ? header[0] : header;
      if (!key) throw new GatewayError("api_key_missing");
      const mode = modeOfKey(key);
      if (!mode) throw new GatewayError("api_key_invalid");
      const hash = hashApiKey(key);
      const rows =
        mode === "test"
          ? await sql<{ id: string; merchant_id: string; active: boolean }[]>`
              select id, merchant_id, active from api_keypairs where test_key_hash = ${hash}`
          : await sql<{ id: string; merchant_id: string; active: boolean }[]>`
              select id, merchant_id, active from api_keypairs where live_key_hash = ${hash}`;
      const keypair = rows[0];
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
