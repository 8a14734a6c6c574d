import type { z } from "zod";

/** A configuration variable was missing or malformed; the message names every bad variable. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly issues: { variable: string; problem: string }[],
    service: string,
  ) {
    super(
      `${service}: invalid configuration: ` + issues.map((i) => `${i.variable}: ${i.problem}`).join("; "),
    );
  }
}

/**
 * Parses the environment once against a service's schema. Nothing else in the code base reads
 * `process.env`: services receive the parsed object.
 */
export function parseConfig<S extends z.ZodObject>(
  service: string,
  schema: S,
  env: Record<string, string | undefined>,
): z.infer<S> {
  // Empty strings mean "unset", as in most shells' `VAR= cmd`.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => ({
      variable: String(issue.path[0] ?? "(root)"),
      problem: issue.message,
    })),
    service,
  );
}

/** For entrypoints: parse or print the reason and exit with status 78 (EX_CONFIG). */
export function loadConfigOrExit<S extends z.ZodObject>(
  service: string,
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  try {
    return parseConfig(service, schema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}
