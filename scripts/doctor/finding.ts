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

/** Green and red lines, with colour on a terminal. */
export function formatFindings(findings: readonly Finding[], color: boolean): string {
  const paint = (code: number, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const lines = findings.map((f) => {
    const mark = f.ok ? paint(32, "✓ ok   ") : paint(31, "✗ WRONG");
    const subject = f.variable && !f.ok ? `${f.variable}: ` : "";
    return `${mark} ${f.topic.padEnd(18)} ${subject}${f.text}`;
  });
  const wrong = findings.filter((f) => !f.ok).length;
  lines.push(
    wrong === 0
      ? paint(32, `all ${findings.length} checks passed`)
      : paint(31, `${wrong} of ${findings.length} checks failed: fix each variable named above`),
  );
  return `${lines.join("\n")}\n`;
}
