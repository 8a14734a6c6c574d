// Customers' wallets on the local networks, paying deposit addresses through the chains' RPC
// with the networks' own pay helpers (the libraries a real wallet uses: @solana/web3.js,
// @mysten/sui). Each payment comes from a fresh wallet that the faucet funds with what it sends,
// so payments in flight at once never compete for one wallet's balance or coins.
import { formatUnits, payFromLocalWallet } from "@gateway/solana-localnet";
import { pay as suiPay } from "@gateway/sui-localnet";
import { Keypair } from "@solana/web3.js";

export interface ChainPayer {
  /** Sends `baseUnits` of USDC to the wallet `to`; resolves once the chain has executed it. */
  pay(to: string, baseUnits: bigint): Promise<void>;
}

export function createSolanaPayer(options: { rpcUrl: string; wsUrl: string }): ChainPayer {
  return {
    async pay(to, baseUnits) {
      const { rpcUrl, wsUrl } = options;
      const amount = formatUnits(baseUnits, 6);
      await payFromLocalWallet({ rpcUrl, wsUrl, to, coin: "USDC", amount, wallet: Keypair.generate() });
    },
  };
}

export function createSuiPayer(options: { url: string }): ChainPayer {
  return {
    async pay(to, baseUnits) {
      await suiPay({ url: options.url, to, coin: "USDC", amount: formatUnits(baseUnits, 6) });
    },
  };
}
