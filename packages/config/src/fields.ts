import { z } from "zod";

/** Reusable field types for service schemas. */
export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const url = (protocols: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol.replace(/:$/, ""));
      } catch {
        return false;
      }
    },
    { message: `must be a URL (${protocols.join(", ")})` },
  );

export const logLevel = z
  .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
  .default("info");

export const booleanFlag = z
  .enum(["true", "false", "1", "0"])
  .default("false")
  .transform((v) => v === "true" || v === "1");

export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const commaList = z
  .string()
  .default("")
  .transform((v) =>
    v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** One or more URLs separated by commas (a NATS cluster's seed servers). */
export const urlList = (protocols: string[]) =>
  z.string().refine(
    (value) =>
      value.split(",").every((part) => {
        try {
          return protocols.includes(new URL(part.trim()).protocol.replace(/:$/, ""));
        } catch {
          return false;
        }
      }),
    { message: `must be one or more comma-separated URLs (${protocols.join(", ")})` },
  );
