/** Compile-time exhaustiveness for switches over unions; throws if a value slips through at run time. */
export function assertNever(value: never, what = "value"): never {
  throw new Error(
    `unexpected ${what}: ${JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? `${v}n` : v))}`,
  );
}
