/** Asks the local network's faucet for `amount` of `coin` (whole coins) to `owner`. */
export type Faucet = (owner: string, coin: string, amount: string) => Promise<void>;

/**
 * A fresh local cluster's Solana service wallets, set up through the faucet (the signer never
 * signs a bare account creation): SOL for the gas wallet's fees, and the vault's USDC/USDT token
 * accounts, created by a dust mint each, before sweeps can land in them.
 */
export async function fundServiceWallets(
  faucet: Faucet,
  wallets: { gas: string; vault: string },
): Promise<void> {
  await faucet(wallets.gas, "SOL", "100");
  await faucet(wallets.vault, "USDC", "0.000001");
  await faucet(wallets.vault, "USDT", "0.000001");
}
