import type { ChainModule } from "./chain-module.js";

const SUI_ADDRESS = /^0x[0-9a-fA-F]{64}$/;

export const sui: ChainModule<"sui"> = {
  id: "sui",
  name: "Sui",
  assets: [
    { coin: "USDC", decimals: 6, native: false },
    { coin: "USDT", decimals: 6, native: false },
    { coin: "SUI", decimals: 9, native: true },
  ],
  // The full 32-byte form only: a short "0x2" is a system object, never a deposit or payout
  // address. Lower case is canonical, as the chain and its SDK print it.
  parseAddress(raw) {
    const address = raw.trim();
    return SUI_ADDRESS.test(address) ? address.toLowerCase() : undefined;
  },
  addressShape: "0x followed by 64 hex digits",
  // Sui has no payment-request URI standard wallets agree on: the checkout shows the address.
  paymentUri: () => null,
  watcherService: "watcher-sui",
  settlementPackage: "@gateway/chain-sui",
};
