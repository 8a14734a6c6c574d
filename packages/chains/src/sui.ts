import { type ChainModule, STABLECOIN_ASSETS } from "./chain-module.js";
import { CHAIN_LABELS } from "./labels.js";

const SUI_ADDRESS = /^0x[0-9a-fA-F]{64}$/;

export const sui: ChainModule<"sui"> = {
  id: "sui",
  name: CHAIN_LABELS.sui.name,
  assets: [...STABLECOIN_ASSETS, { coin: "SUI", decimals: 9, native: true }],
  // The full 32-byte form only: a short "0x2" is a system object, never a deposit or payout
  // address. Lower case is canonical, as the chain and its SDK print it.
  parseAddress(raw) {
    const address = raw.trim();
    return SUI_ADDRESS.test(address) ? address.toLowerCase() : undefined;
  },
  addressShape: "0x followed by 64 hex digits",
  // Sui has no payment-request URI standard wallets agree on: the checkout shows the address.
  paymentUri: () => null,
  chainPackage: "@gateway/chain-sui",
  // 0.05: a sponsored transfer's gas.
  manualPayoutNetworkFee: 50_000n,
  mainnet: {
    // The digest of mainnet's genesis checkpoint, which sui.rpc.v2 LedgerService.GetServiceInfo
    // returns as `chain_id`; its first four bytes in hex are the short identifier 35834a8a that
    // the JSON-RPC sui_getChainIdentifier and Wormhole's Sui contract table print.
    networkId: "4btiuiMPvEENsttpZC7CZ53DruC3MAgfznDbASZ7DR6S",
    tokens: {
      // Circle's native USDC on Sui.
      USDC: ["0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC"],
      // Sui has no Tether-issued USDT: suiUSDT (bridged by the Sui Bridge) is the default, and
      // Wormhole's bridged USDT ("USDT (Wormhole)") is the other one wallets hold.
      USDT: [
        "0x375f70cf2ae4c00bf37117d0c85a2c71545e6ee05c4a5c7d282cd66a4504b068::usdt::USDT",
        "0xc060006111016b8a020ad5b33834984a437aaa7d3c74c18e09a95d48aceab08c::coin::COIN",
      ],
    },
  },
};
