// The chaos run: CI size by default (120 payments, 3 faults of each type); `npm run chaos` sets
// CHAOS_PAYMENTS=1000 CHAOS_FAULTS=5 for the full size. See run-chaos.ts for what it does.
import { expect, it } from "vitest";
import { formatFigures, runChaos } from "./run-chaos.js";

it("test-mode payments and webhooks survive SIGKILLs of every process type and NATS/PostgreSQL restarts", async () => {
  const figures = await runChaos({
    payments: Number(process.env.CHAOS_PAYMENTS ?? 120),
    faultsPerType: Number(process.env.CHAOS_FAULTS ?? 3),
    concurrency: Number(process.env.CHAOS_CONCURRENCY ?? 6),
    log: (line) => process.stdout.write(`chaos | ${line}\n`),
  });
  console.log(formatFigures(figures));
  expect(figures.wrongFinalState).toEqual([]);
  expect(figures.eventsMissing).toEqual([]);
  expect(figures.unstableEventIds).toEqual([]);
  expect(figures.serverErrors.other).toEqual([]);
  for (const [type, n] of Object.entries(figures.faults)) expect(n, type).toBeGreaterThanOrEqual(3);
}, 3_600_000);
