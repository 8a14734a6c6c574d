// The findings' shape and helpers are chain-kit's, since each chain's package checks its own chain.
import type { Finding } from "@gateway/chain-kit";

export { type Finding, fault, pass, plain, within } from "@gateway/chain-kit";

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
