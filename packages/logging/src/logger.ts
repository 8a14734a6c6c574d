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

export function createLogger({ name, level = "info", destination }: LoggerOptions): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      base: { service: name },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
