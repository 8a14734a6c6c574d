// The chaos run: CI size by default (120 test-mode and 20 live payments, 2 live payouts per chain,
// 3 faults of each type, the two journal faults included); `npm run chaos` runs the full size (CHAOS_PAYMENTS=800,
// CHAOS_LIVE_PAYMENTS=200, CHAOS_PAYOUTS=5, CHAOS_FAULTS=5). See run-chaos.ts for what it does.
import { expect, it } from "vitest";
import { formatFigures, runChaos } from "./run-chaos.js";

it("payments, payouts and webhooks survive SIGKILLs of every process type, NATS/PostgreSQL restarts, and settlement journals lost or restored from a mid-run backup", async () => {
  const figures = await runChaos({
    payments: Number(process.env.CHAOS_PAYMENTS ?? 120),
    livePayments: Number(process.env.CHAOS_LIVE_PAYMENTS ?? 20),
    payoutsPerChain: Number(process.env.CHAOS_PAYOUTS ?? 2),
    faultsPerType: Number(process.env.CHAOS_FAULTS ?? 3),
    concurrency: Number(process.env.CHAOS_CONCURRENCY ?? 6),
    // Clients go on while a restore's backup ages, as merchants and customers would; =0 holds them.
    clientWorkInRestoreWindows: process.env.CHAOS_CLIENT_WORK_IN_RESTORE_WINDOWS !== "0",
    log: (line) => process.stdout.write(`chaos | ${line}\n`),
  });
  console.log(formatFigures(figures));
  expect(figures.wrongFinalState).toEqual([]);
  expect(figures.eventsMissing).toEqual([]);
  expect(figures.unstableEventIds).toEqual([]);
  expect(figures.serverErrors.other).toEqual([]);
  // A NATS or PostgreSQL restart is waited out or answered 503 by design, but the chaos client
  // counts any 5xx: the run's answer to issue #21 is that a restart costs none.
  expect(figures.serverErrors.duringInfraRestart).toBe(0);
  expect(figures.stuckIdempotencyKeys).toEqual([]);
  expect(figures.crashes).toEqual([]);
  // The signer checkpointed and rotated its log through the kills and restores, and the whole
  // chain, every archived segment and state file, still verifies offline.
  expect(figures.signerChain.checkpoints).toBeGreaterThan(0);
  expect(figures.signerChain.verify).toMatch(/^ok: \d+ entries/);
  for (const [type, n] of Object.entries(figures.faults)) expect(n, type).toBeGreaterThanOrEqual(3);
  expect(figures.ledger).toMatchObject({ total: 0n, crossedTransfers: [], driftedAccounts: [] });
  const live = figures.live!;
  expect(live.wrongFinalState).toEqual([]);
  expect(live.payoutsNotCompleted).toEqual([]);
  expect(live.chainMismatches).toEqual([]);
  expect(live.sweeps.onChain).toBe(live.sweeps.expected);
  expect(live.refunds.onChain).toBe(live.refunds.expected);
  expect(live.payoutTransfers.onChain).toBe(live.payoutTransfers.expected);
}, 3_600_000);
