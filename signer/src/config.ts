// The signer's whole configuration: one zod schema over the environment, parsed once.
// Outside development the signer insists on mTLS and a sealed seed file whose passphrase
// comes from a mounted file or an unseal command, never from the environment.
import { join } from "node:path";
import { z } from "zod";
import { SIGNER_CHAINS, signerChain } from "./chains/index.js";
import type { ChainName } from "./vocabulary.js";

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly issues: { variable: string; problem: string }[]) {
    super(`signer: invalid configuration: ${issues.map((i) => `${i.variable}: ${i.problem}`).join("; ")}`);
  }
}

const port = z.coerce.number().int().min(0).max(65535);
const base64Or32ByteHex = z.string().transform((value, ctx) => {
  const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, "hex") : Buffer.from(value, "base64");
  if (bytes.length !== 32) {
    ctx.addIssue({ code: "custom", message: "public key must be 32 bytes, hex or base64" });
    return z.NEVER;
  }
  return new Uint8Array(bytes);
});
const approvers = z.array(
  z.object({
    keyId: z.string().min(1).max(64),
    /** refund, payout: approvals of those intents; transfer: a watcher attesting transfers. */
    approves: z.enum(["refund", "payout", "transfer"]),
    publicKey: base64Or32ByteHex,
  }),
);
const amount = z
  .union([z.string().regex(/^\d+$/), z.number().int().nonnegative()])
  .transform((v) => BigInt(v));
// Keys of per-chain settings: the chains' names as SIGNER_CHAINS gives them.
const chainNames = SIGNER_CHAINS.map(({ name }) => name).join("|");
const gasBudgets = z.record(z.string().regex(new RegExp(`^(${chainNames})(:(live|test))?$`)), amount);
const velocity = z.object({ count: z.number().int().nonnegative(), amount });
const payoutLimits = z.object({ perMerchant: velocity, total: velocity });
/** Per UTC day; amounts in base units of the payout stablecoins (6 decimals), summed over assets. */
const DEFAULT_PAYOUT_LIMITS = {
  perMerchant: { count: 20, amount: 100_000_000_000n },
  total: { count: 1_000, amount: 1_000_000_000_000n },
};
const caps = z.record(
  z.string().regex(new RegExp(`^(${chainNames}):.+$`)),
  z.object({ perIntent: amount, perDay: amount }),
);

function json<T extends z.ZodType>(schema: T) {
  return z.string().transform((text, ctx): z.infer<T> => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be JSON" });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      ctx.addIssue({
        code: "custom",
        message: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join(", "),
      });
      return z.NEVER;
    }
    return parsed.data;
  });
}

export const signerConfigSchema = z
  .object({
    SIGNER_ENV: z.enum(["development", "production"]).default("production"),
    SIGNER_HOST: z.string().default("0.0.0.0"),
    SIGNER_PORT: port.default(7443),
    SIGNER_HEALTH_PORT: port.default(7444),
    /** Health and metrics listen on loopback unless a kubelet must reach them (0.0.0.0). */
    SIGNER_HEALTH_HOST: z.string().default("127.0.0.1"),
    /** A folder holding ca.pem, server.pem and server-key.pem (what `dev-certs` writes). */
    SIGNER_TLS_DIR: z.string().optional(),
    SIGNER_TLS_CA: z.string().optional(),
    SIGNER_TLS_CERT: z.string().optional(),
    SIGNER_TLS_KEY: z.string().optional(),
    /** PEM CRL of the CA; re-read on SIGHUP and every SIGNER_TLS_RELOAD_SECONDS. */
    SIGNER_TLS_CRL: z.string().optional(),
    SIGNER_TLS_RELOAD_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
    SIGNER_SEALED_SEED_FILE: z.string().optional(),
    /** Development only: the environment of a process is readable in /proc/<pid>/environ. */
    SIGNER_SEED_PASSPHRASE: z.string().optional(),
    SIGNER_SEED_PASSPHRASE_FILE: z.string().optional(),
    /** A command (JSON array, or words split on spaces) whose stdout is the passphrase. */
    SIGNER_SEED_UNSEAL_COMMAND: z
      .string()
      .transform((text, ctx) => {
        let argv: unknown = text.trim().split(/\s+/);
        if (text.trim().startsWith("[")) {
          try {
            argv = JSON.parse(text);
          } catch {
            argv = undefined;
          }
        }
        if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === "string" && a)) {
          ctx.addIssue({ code: "custom", message: "must be a command: a JSON array of strings or words" });
          return z.NEVER;
        }
        return argv as string[];
      })
      .optional(),
    SIGNER_SEED_UNSEAL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    SIGNER_SEED_MNEMONIC: z.string().optional(),
    SIGNER_TRUSTED_APPROVERS: json(approvers).default([]),
    SIGNER_CAPS: json(caps).default({}),
    SIGNER_SUI_MAX_GAS_BUDGET: amount.default(50_000_000n),
    /** MIST per unit; mainnet's reference price is in the hundreds. */
    SIGNER_SUI_MAX_GAS_PRICE: amount.default(5_000n),
    /** Worst-case fees per UTC day: lamports for "solana", MIST for "sui" ("<chain>:<mode>" overrides). */
    SIGNER_GAS_BUDGETS: json(gasBudgets).default(
      Object.fromEntries(SIGNER_CHAINS.map(({ name, defaultGasBudget }) => [name, defaultGasBudget])),
    ),
    /** required: a refund needs a trusted watcher's attestation (off only for a gradual roll-out). */
    SIGNER_REFUND_ATTESTATION: z.enum(["required", "off"]).default("required"),
    SIGNER_MAX_SWEEPS_PER_DEPOSIT: z.coerce.number().int().min(1).max(1000).default(8),
    SIGNER_SOLANA_MAX_NONCE_ACCOUNTS: z.coerce.number().int().min(1).max(100_000).default(1024),
    SIGNER_SOLANA_MAX_PRIORITY_FEE_LAMPORTS: amount.default(100_000n),
    /** Seconds before a new payout destination takes effect (the merchant is told and can cancel). */
    SIGNER_PAYOUT_DESTINATION_DELAY_SECONDS: z.coerce.number().int().min(0).max(2_592_000).default(86_400),
    SIGNER_TEST_PAYOUT_DESTINATION_DELAY_SECONDS: z.coerce.number().int().min(0).max(2_592_000).default(0),
    /** Payout and destination approvals expiring further ahead than this are refused. */
    SIGNER_APPROVAL_MAX_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
    SIGNER_PAYOUT_LIMITS: json(payoutLimits).default(DEFAULT_PAYOUT_LIMITS),
    SIGNER_AUDIT_LOG: z.string().optional(),
    /** A checkpoint (state beside the chain, the live segment rotated into the archive) every N entries, */
    SIGNER_CHECKPOINT_ENTRIES: z.coerce.number().int().min(100).max(10_000_000).default(50_000),
    /** or every T minutes when anything was written since. */
    SIGNER_CHECKPOINT_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
    /** Input locks of intents signed longer ago are not carried into a checkpoint. */
    SIGNER_LOCK_RETENTION_HOURS: z.coerce.number().int().min(1).max(87_600).default(168),
    SIGNER_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
  })
  .superRefine((env, ctx) => {
    const dev = env.SIGNER_ENV === "development";
    const issue = (variable: string, message: string) =>
      ctx.addIssue({ code: "custom", path: [variable], message });
    const explicit = [env.SIGNER_TLS_CA, env.SIGNER_TLS_CERT, env.SIGNER_TLS_KEY].filter(Boolean).length;
    if (explicit !== 0 && explicit !== 3)
      issue("SIGNER_TLS_CA", "set SIGNER_TLS_CA, SIGNER_TLS_CERT and SIGNER_TLS_KEY together");
    if (explicit === 3 && env.SIGNER_TLS_DIR)
      issue("SIGNER_TLS_DIR", "set either SIGNER_TLS_DIR or the explicit paths");
    if (!dev && explicit === 0 && !env.SIGNER_TLS_DIR) {
      issue("SIGNER_TLS_DIR", "mTLS is required outside development (or set SIGNER_TLS_CA/CERT/KEY)");
    }
    if (env.SIGNER_TLS_CRL && explicit === 0 && !env.SIGNER_TLS_DIR)
      issue("SIGNER_TLS_CRL", "a CRL needs mTLS (SIGNER_TLS_DIR or SIGNER_TLS_CA/CERT/KEY)");
    if (env.SIGNER_SEED_MNEMONIC && !dev)
      issue("SIGNER_SEED_MNEMONIC", "allowed only with SIGNER_ENV=development");
    if (env.SIGNER_SEED_MNEMONIC && env.SIGNER_SEALED_SEED_FILE) {
      issue("SIGNER_SEED_MNEMONIC", "set either SIGNER_SEED_MNEMONIC or SIGNER_SEALED_SEED_FILE");
    }
    if (!env.SIGNER_SEED_MNEMONIC && !env.SIGNER_SEALED_SEED_FILE) {
      issue(
        "SIGNER_SEALED_SEED_FILE",
        "the signer needs its seed: a sealed seed file (or SIGNER_SEED_MNEMONIC in development)",
      );
    }
    const passphrases = [
      env.SIGNER_SEED_PASSPHRASE,
      env.SIGNER_SEED_PASSPHRASE_FILE,
      env.SIGNER_SEED_UNSEAL_COMMAND,
    ].filter(Boolean).length;
    if (env.SIGNER_SEED_PASSPHRASE && !dev) {
      issue(
        "SIGNER_SEED_PASSPHRASE",
        "not allowed outside development (the environment is readable in /proc); use SIGNER_SEED_PASSPHRASE_FILE or SIGNER_SEED_UNSEAL_COMMAND",
      );
    } else if (env.SIGNER_SEALED_SEED_FILE && passphrases === 0) {
      issue(
        "SIGNER_SEED_PASSPHRASE_FILE",
        "required with SIGNER_SEALED_SEED_FILE (or SIGNER_SEED_UNSEAL_COMMAND)",
      );
    } else if (passphrases > 1) {
      issue(
        "SIGNER_SEED_PASSPHRASE_FILE",
        "set one of SIGNER_SEED_PASSPHRASE_FILE, SIGNER_SEED_UNSEAL_COMMAND and SIGNER_SEED_PASSPHRASE",
      );
    }
    if (!dev && !env.SIGNER_AUDIT_LOG) issue("SIGNER_AUDIT_LOG", "required outside development");
  });

export type PassphraseSource =
  | { kind: "value"; value: string }
  | { kind: "file"; path: string }
  | { kind: "command"; argv: string[]; timeoutMs: number };

export type SeedSource =
  | { kind: "sealed"; file: string; passphrase: PassphraseSource }
  | { kind: "mnemonic"; mnemonic: string };

export interface SignerConfig {
  env: "development" | "production";
  host: string;
  port: number;
  healthPort: number;
  healthHost: string;
  tls: { ca: string; cert: string; key: string; crl?: string } | undefined;
  /** The variable that named the CA, for start-up refusals. */
  tlsCaVariable: "SIGNER_TLS_DIR" | "SIGNER_TLS_CA";
  /** 0: TLS files are re-read on SIGHUP only. */
  tlsReloadSeconds: number;
  seed: SeedSource;
  trustedApprovers: z.infer<typeof approvers>;
  caps: Map<string, { perIntent: bigint; perDay: bigint }>;
  maxSuiGasBudget: bigint;
  maxSuiGasPrice: bigint;
  gasBudgets: Map<string, bigint>;
  maxSweepsPerDeposit: number;
  refundAttestation: "required" | "off";
  maxSolanaNonceAccounts: number;
  maxSolanaPriorityFeeLamports: bigint;
  payoutPolicy: {
    destinationDelaySeconds: { live: number; test: number };
    approvalMaxTtlSeconds: number;
    limits: z.infer<typeof payoutLimits>;
  };
  auditLog: string;
  checkpoints: { everyEntries: number; everyMs: number; keepLocksMs: number };
  logLevel: string;
}

// Cap keys must be spelled as the signer spells assets (Sui coin types in full form).
function canonicalCapKey(key: string): string {
  const [chain, ...rest] = key.split(":") as [ChainName, ...string[]];
  const asset = rest.join(":");
  if (asset === "*") return key;
  try {
    return `${chain}:${signerChain(chain).configAsset?.(asset) ?? asset}`;
  } catch (error) {
    throw new ConfigError([{ variable: "SIGNER_CAPS", problem: (error as Error).message }]);
  }
}

/** Parses the environment. Empty strings count as unset. */
export function parseSignerConfig(env: Record<string, string | undefined>): SignerConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith("SIGNER_") && v));
  const result = signerConfigSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? "(environment)"),
        problem: issue.message,
      })),
    );
  }
  const c = result.data;
  const tls: SignerConfig["tls"] = c.SIGNER_TLS_DIR
    ? {
        ca: join(c.SIGNER_TLS_DIR, "ca.pem"),
        cert: join(c.SIGNER_TLS_DIR, "server.pem"),
        key: join(c.SIGNER_TLS_DIR, "server-key.pem"),
      }
    : c.SIGNER_TLS_CA && c.SIGNER_TLS_CERT && c.SIGNER_TLS_KEY
      ? { ca: c.SIGNER_TLS_CA, cert: c.SIGNER_TLS_CERT, key: c.SIGNER_TLS_KEY }
      : undefined;
  if (tls && c.SIGNER_TLS_CRL) tls.crl = c.SIGNER_TLS_CRL;
  const auditLog = c.SIGNER_AUDIT_LOG ?? join("signer-data", "audit.jsonl");
  const passphrase: PassphraseSource = c.SIGNER_SEED_PASSPHRASE_FILE
    ? { kind: "file", path: c.SIGNER_SEED_PASSPHRASE_FILE }
    : c.SIGNER_SEED_UNSEAL_COMMAND
      ? { kind: "command", argv: c.SIGNER_SEED_UNSEAL_COMMAND, timeoutMs: c.SIGNER_SEED_UNSEAL_TIMEOUT_MS }
      : { kind: "value", value: c.SIGNER_SEED_PASSPHRASE ?? "" };
  return {
    env: c.SIGNER_ENV,
    host: c.SIGNER_HOST,
    port: c.SIGNER_PORT,
    healthPort: c.SIGNER_HEALTH_PORT,
    healthHost: c.SIGNER_HEALTH_HOST,
    tls,
    tlsCaVariable: c.SIGNER_TLS_DIR ? "SIGNER_TLS_DIR" : "SIGNER_TLS_CA",
    tlsReloadSeconds: c.SIGNER_TLS_RELOAD_SECONDS,
    seed: c.SIGNER_SEALED_SEED_FILE
      ? { kind: "sealed", file: c.SIGNER_SEALED_SEED_FILE, passphrase }
      : { kind: "mnemonic", mnemonic: c.SIGNER_SEED_MNEMONIC ?? "" },
    trustedApprovers: c.SIGNER_TRUSTED_APPROVERS,
    caps: new Map(Object.entries(c.SIGNER_CAPS).map(([key, cap]) => [canonicalCapKey(key), cap])),
    maxSuiGasBudget: c.SIGNER_SUI_MAX_GAS_BUDGET,
    maxSuiGasPrice: c.SIGNER_SUI_MAX_GAS_PRICE,
    gasBudgets: new Map(Object.entries(c.SIGNER_GAS_BUDGETS)),
    maxSweepsPerDeposit: c.SIGNER_MAX_SWEEPS_PER_DEPOSIT,
    refundAttestation: c.SIGNER_REFUND_ATTESTATION,
    maxSolanaNonceAccounts: c.SIGNER_SOLANA_MAX_NONCE_ACCOUNTS,
    maxSolanaPriorityFeeLamports: c.SIGNER_SOLANA_MAX_PRIORITY_FEE_LAMPORTS,
    payoutPolicy: {
      destinationDelaySeconds: {
        live: c.SIGNER_PAYOUT_DESTINATION_DELAY_SECONDS,
        test: c.SIGNER_TEST_PAYOUT_DESTINATION_DELAY_SECONDS,
      },
      approvalMaxTtlSeconds: c.SIGNER_APPROVAL_MAX_TTL_SECONDS,
      limits: c.SIGNER_PAYOUT_LIMITS,
    },
    auditLog,
    checkpoints: {
      everyEntries: c.SIGNER_CHECKPOINT_ENTRIES,
      everyMs: c.SIGNER_CHECKPOINT_MINUTES * 60_000,
      keepLocksMs: c.SIGNER_LOCK_RETENTION_HOURS * 3_600_000,
    },
    logLevel: c.SIGNER_LOG_LEVEL,
  };
}

/** Secrets leave the environment once read, so child processes and dumps never see them. */
export function scrubSecrets(env: Record<string, string | undefined>): void {
  delete env.SIGNER_SEED_MNEMONIC;
  delete env.SIGNER_SEED_PASSPHRASE;
}
