// What bench/pg-floor.ts asks of a design: its statements for a batch of test payments, through
// one of three stages, each stage including the ones before it.
//   api         create, the checkout's reads, generate-wallet, the simulate command
//   settlement  + the command's relay, the payment actor's step, the relay of its events
//   notifier    + each event's delivery recorded with its outcome
import type { BusTopology } from "../packages/bus/src/topology.js";
import type { Sql } from "../packages/db/src/client.js";

export const STAGES = ["api", "settlement", "notifier"] as const;
export type Stage = (typeof STAGES)[number];

export interface FloorContext {
  sql: Sql;
  topology: BusTopology;
  merchantId: string;
  endpointId: string;
  batch: number;
}

export interface FloorFlow {
  /** `batch` new payments taken through `stage`; answers how many were created. */
  payments(stage: Stage): Promise<number>;
  /** Whatever the last batches left for a later relay, done now (inside the measure). */
  drain(stage: Stage): Promise<void>;
  /** Payments not completed; checked after a settlement or notifier stage. */
  unfinished(): Promise<number>;
}

/** Every floor payment's first wallet: 10 USDC on Solana at `address`. */
export const floorWallet = (address: string) =>
  ({
    type: "wallet_assigned",
    chain: "solana",
    coin: "USDC",
    address,
    amountDue: 10_000_000n,
    quote: null,
  }) as const;
