// The soak's live customers: wallets funded ahead of the load, each payment what a wallet's
// "send" button does, one signed USDC transfer through the chain's RPC (the local networks'
// customer pools, which bench/pipeline-bench.ts pays from too). The soak's driver shares the two
// cores with the cluster it loads; a newcomer's whole journey per payment (a fresh wallet, the
// faucet twice, coin look-ups, a websocket confirmation) cost it 10–40 ms of CPU, so the probe
// measured the driver at 1–3 live payments a second rather than the system.
import { createSolanaCustomerPool } from "@gateway/solana-localnet";
import { createSuiCustomerPool } from "@gateway/sui-localnet";
import { createSuiPayer, type SuiPayer } from "./sui-payer.js";

export interface ChainPayer {
  /**
   * Sends `baseUnits` of USDC to the wallet `to`; resolves with the transaction's signature or
   * digest once the network accepted it (Solana's `sendTransaction`) or executed it (Sui).
   */
  pay(to: string, baseUnits: bigint): Promise<string>;
}

export interface Customers {
  solana: ChainPayer;
  sui: SuiPayer;
  close(): Promise<void>;
}

/**
 * Solana orders transactions that write the same account, so one wallet can have many payments
 * in flight; 32 spread them as the pipeline bench does. Each starts with 10 SOL, enough for the
 * fee and the recipient's token-account rent of thousands of payments.
 */
export const SOLANA_WALLETS = 32;

/** Prepared Sui wallets kept at least: a few seconds of `rate` payments a second, never under 64. */
export function suiReserveFor(rate: number): number {
  return Math.max(64, Math.ceil(rate * 4));
}

export async function createCustomers(options: {
  solanaRpcUrl: string;
  suiUrl: string;
  /** Prepared Sui wallets to keep from the start (suiReserveFor). */
  suiReserve: number;
}): Promise<Customers> {
  const solana = await createSolanaCustomerPool({ rpcUrl: options.solanaRpcUrl, wallets: SOLANA_WALLETS });
  try {
    const sui = createSuiPayer(await createSuiCustomerPool({ url: options.suiUrl }), options.suiReserve);
    return {
      solana,
      sui,
      async close() {
        solana.close();
        await sui.close();
      },
    };
  } catch (err) {
    solana.close();
    throw err;
  }
}
