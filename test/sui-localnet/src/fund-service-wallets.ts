/** settlement's chain-work concurrency (services/settlement/src/command-consumer.ts). */
const GAS_COINS = 64;

/**
 * A fresh local cluster's Sui gas wallet: each Sui transaction in flight holds one of its coins, so
 * their number bounds the sweeps and refunds in flight, as many as settlement runs at once. Asked
 * for together: the network grants them one at a time, without a round trip between.
 */
export async function fundServiceWallets(
  faucet: (owner: string, coin: string, amount: string) => Promise<void>,
  wallets: { gas: string },
): Promise<void> {
  await Promise.all(Array.from({ length: GAS_COINS }, () => faucet(wallets.gas, "SUI", "25")));
}
