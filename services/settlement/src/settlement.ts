import { type Bus, createOutboxRelay } from "@gateway/bus";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import type { ChainSettlements } from "./chains/chain-settlement.js";
import { startDepositConsumer } from "./deposits.js";
import { startExpirySweeper } from "./expiry-sweeper.js";
import { startPaymentCommands } from "./payment-commands.js";
import { type PayoutActorOptions, startPayouts } from "./payouts.js";
import { startSettlementWork, type UsdRate } from "./settlement-work.js";

export interface SettlementOptions {
  sql: Sql;
  bus: Bus;
  log: Logger;
  publicBaseUrl: string;
  expiryPollMs: number;
  outboxPollMs?: number;
  /** Live-mode settlement per chain; test mode needs none. */
  chains?: ChainSettlements;
  /** The payout actor's live chains, scheduled-payout approvals and schedule pace. */
  payouts?: Omit<PayoutActorOptions, "sql" | "bus" | "log">;
  /** Live prices for the fee of SOL/SUI payments at completion; without it the creation fee stands. */
  usdRate?: UsdRate;
}

export interface Settlement {
  stop(): Promise<void>;
}

/** Everything settlement runs, started together and stopped in reverse order. */
export async function startSettlement(options: SettlementOptions): Promise<Settlement> {
  const { sql, bus, log, publicBaseUrl } = options;
  const actor = { sql, topology: bus.topology, log, publicBaseUrl };
  const relay = createOutboxRelay({
    sql,
    js: bus.js,
    topology: bus.topology,
    log,
    pollMs: options.outboxPollMs ?? 500,
  });
  await relay.start();
  const commands = await startPaymentCommands({ ...actor, bus });
  const deposits = await startDepositConsumer({ ...actor, bus });
  const work = await startSettlementWork({
    ...actor,
    bus,
    chains: options.chains ?? {},
    usdRate: options.usdRate,
  });
  const expiry = startExpirySweeper(actor, options.expiryPollMs);
  const payouts = await startPayouts({ sql, bus, log, ...options.payouts });
  return {
    async stop() {
      await payouts.stop();
      await expiry.stop();
      await work.stop();
      await deposits.stop();
      await commands.stop();
      await relay.stop();
    },
  };
}

export type { ChainSettlement, ChainSettlements, RefundWork, SweepWork } from "./chains/chain-settlement.js";
export type { UsdRate } from "./settlement-work.js";
