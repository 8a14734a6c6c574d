// A line of `gateway doctor`'s report (scripts/doctor), here because each chain's package checks
// its own chain for it (ChainDoctorModule).

/** One line of the doctor's report: what was checked, whether it is right, in plain words. */
export interface Finding {
  ok: boolean;
  /** The area: configuration, solana, sui, database, signer, wallets, prices… */
  topic: string;
  /** The variable to change when it is wrong (absent when no single variable is to blame). */
  variable?: string;
  text: string;
}

export const pass = (topic: string, text: string, variable?: string): Finding => ({
  ok: true,
  topic,
  text,
  ...(variable ? { variable } : {}),
});

export const fault = (topic: string, text: string, variable?: string): Finding => ({
  ok: false,
  topic,
  text,
  ...(variable ? { variable } : {}),
});

/** An error's message without credentials in URLs. */
export function plain(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/([a-z]+:\/\/)[^\s/]*@/gi, "$1***@").replace(/(api[-_]?key=)[^&\s]+/gi, "$1***");
}

/** Resolves or rejects within `ms`, so one dead endpoint does not hang the report. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Base units as whole coins, for the report: `whole(50_000_000n, 9)` is "0.05". */
export const whole = (amount: bigint, decimals: number) => {
  const digits = amount.toString().padStart(decimals + 1, "0");
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals).replace(/0+$/, "") || "0"}`;
};
