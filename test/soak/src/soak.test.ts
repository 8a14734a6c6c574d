// The soak (issue 10): CI runs 3 minutes of steady load; `npm run soak` runs 30 and records the
// figures in bench/RESULTS-soak.md. The live customers pay from wallets funded ahead (Solana: 32
// funded at the start; Sui: a reserve of single-use wallets topped up in the background), one
// signed transfer per payment, so the driver sharing the cores with the cluster stays cheap and
// the probe measures the system, not the customers. Sizes and rates come from the environment:
//   SOAK_SECONDS (180), SOAK_SAMPLE_SECONDS (10, or 30 from 10 minutes on), SOAK_PROBE_SECONDS
//   (20, or 60 from 10 minutes on), SOAK_RATE_TEST / SOAK_RATE_SOLANA / SOAK_RATE_SUI (payments
//   per second; unset: half of the probed capacity), SOAK_RECORD=1 to write the bench files.
import { describe, expect, it } from "vitest";
import { machineLine } from "../../../bench/machine.js";
import type { Kind } from "./load.js";
import {
  loadTable,
  memoryTable,
  passed,
  postgresBackendsTable,
  ratesLine,
  recordSoak,
  verdictLines,
} from "./report.js";
import { runSoak } from "./run-soak.js";

const env = process.env;
const seconds = Number(env.SOAK_SECONDS ?? 180);
const long = seconds >= 600;
const sampleSeconds = Number(env.SOAK_SAMPLE_SECONDS ?? (long ? 30 : 10));
const probeSeconds = Number(env.SOAK_PROBE_SECONDS ?? (long ? 60 : 20));
const rates: Partial<Record<Kind, number>> = {};
for (const [kind, name] of [
  ["test", "SOAK_RATE_TEST"],
  ["solana", "SOAK_RATE_SOLANA"],
  ["sui", "SOAK_RATE_SUI"],
] as const) {
  if (env[name]) rates[kind] = Number(env[name]);
}
const say = (line: string) =>
  process.stdout.write(`soak ${new Date().toISOString().slice(11, 19)} | ${line}\n`);

describe("soak", () => {
  it(
    `steady live and test payments for ${seconds} s: no memory, queue or latency grows without bound`,
    async () => {
      const result = await runSoak({ seconds, sampleSeconds, probeSeconds, rates, say });
      say(`rates: ${ratesLine(result)}`);
      for (const line of [
        ...loadTable(result),
        "",
        ...memoryTable(result),
        "",
        ...postgresBackendsTable(result),
        "",
        ...verdictLines(result),
      ])
        say(line);
      if (env.SOAK_RECORD === "1") {
        recordSoak(result, machineLine());
        say("recorded in bench/RESULTS-soak.md and bench/RESULTS.md");
      }
      expect(result.samples.length).toBeGreaterThanOrEqual(6);
      // PostgreSQL's backends were read, the API's among them.
      expect(result.samples.some((s) => (s.postgresBackends?.api?.connections ?? 0) > 0)).toBe(true);
      expect([...result.checks, ...result.endChecks].filter((c) => !c.ok)).toEqual([]);
      expect(passed(result)).toBe(true);
    },
    // Start-up and funding, the probe, the load, the drain (up to 4 minutes) and the stop.
    (seconds + probeSeconds + 600) * 1000,
  );
});
