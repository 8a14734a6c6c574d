import { type DestinationStream, type Logger, pino } from "pino";

export type { Logger };

/**
 * Field names that may carry a secret anywhere in a log object. pino's redaction works on paths,
 * so each name is listed at the top level and one and two levels deep.
 */
const SECRET_FIELDS = [
  "password",
  "passwordHash",
  "token",
  "jwt",
  "authorization",
  "apiKey",
  "api_key",
  "x-api-key",
  "testKey",
  "test_key",
  "liveKey",
  "live_key",
  "key",
  "secret",
  "webhookSecret",
  "signingSecret",
  "seed",
  "mnemonic",
  "passphrase",
  "privateKey",
  "otp",
  "code",
  "cookie",
];

export const REDACTED_PATHS = SECRET_FIELDS.flatMap((field) => {
  const access = /^[A-Za-z_$][\w$]*$/.test(field) ? `.${field}` : `["${field}"]`;
  return [access.replace(/^\./, ""), `*${access}`, `*.*${access}`];
});

export interface LoggerOptions {
  /** Service or component name, added to every line. */
  name: string;
  level?: string;
  /** Where lines go; stdout by default. Tests pass a stream to read them back. */
  destination?: DestinationStream;
}

/**
 * `code` is redacted everywhere because one-time codes travel under that name, which also hid
 * what an error was (ECONNRESET, 57P01) from the operator. An error's code is kept as
 * `errorCode` unless it looks like a one-time code (six digits).
 */
function serializeError(err: Error): Record<string, unknown> {
  const out = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && !/^\d{6}$/.test(code)) out["errorCode"] = code;
  return out;
}

export function createLogger({ name, level = "info", destination }: LoggerOptions): Logger {
  return pino(
    {
      name,
      level,
      serializers: { err: serializeError },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      base: { service: name },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
