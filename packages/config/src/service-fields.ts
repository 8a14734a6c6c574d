// Variables several services share, apart from any chain's: the chains' own are in chain-configs.ts.
import { z } from "zod";
import { logLevel, positiveInt, url, urlList } from "./fields.js";

/** Variables every service that talks to PostgreSQL and NATS shares. */
export const infrastructure = {
  DATABASE_URL: url(["postgres", "postgresql"]),
  NATS_URL: urlList(["nats", "tls", "ws", "wss"]).default("nats://127.0.0.1:4222"),
  LOG_LEVEL: logLevel,
  /** Prefix for JetStream stream and consumer names, so several deployments can share one NATS. */
  BUS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "letters, digits, _ and - only")
    .default("gw"),
  /**
   * Replicas of each JetStream stream: 3 on a NATS cluster. Unset: 1 when a stream is created,
   * and an existing stream keeps whatever it has.
   */
  BUS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).optional(),
  /**
   * Connections this process keeps to PostgreSQL at most. Unset: the service's own default
   * (api and notifier 20, settlement 10, a watcher 5). Each backend holds memory for the
   * statements it has prepared, so a deployment with many replicas may want fewer.
   */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).optional(),
};

/**
 * The chain preflight (packages/chain-preflight): how often a service checks its endpoints again,
 * and how old the newest block or checkpoint may be before the endpoint counts as stale.
 */
export const preflightFields = {
  CHAIN_PREFLIGHT_INTERVAL_MS: positiveInt(30_000),
  CHAIN_MAX_LAG_SECONDS: positiveInt(60),
};

/** A signing key's 32-byte ed25519 seed in hex; unset: the service signs nothing with it. */
export const hexSeed = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, "32 bytes in hex")
  .optional();

/**
 * A watcher's attestation key: final deposit reports carry its signature, and the signer refunds
 * only attested transfers (SIGNER_TRUSTED_APPROVERS lists its public half with
 * `approves: "transfer"`). Unset: reports carry none, and live refunds are refused.
 */
export const attestationFields = {
  WATCHER_ATTESTATION_KEY_ID: z.string().default("watcher"),
  WATCHER_ATTESTATION_SEED: hexSeed,
};
