import bs58 from "bs58";
import { type ChainModule, type PaymentRequest, STABLECOIN_ASSETS } from "./chain-module.js";
import { CHAIN_LABELS } from "./labels.js";

/**
 * Base58 of exactly 32 bytes, written canonically (re-encoding gives the same text, so there are
 * no look-alike spellings). Off-curve keys are accepted: multisig vaults (Squads) and token
 * accounts are program addresses.
 */
function parseSolanaAddress(raw: string): string | undefined {
  const address = raw.trim();
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(address);
  } catch {
    return undefined;
  }
  return bytes.length === 32 && bs58.encode(bytes) === address ? address : undefined;
}

/**
 * A Solana Pay transfer-request URI. The recipient is the deposit owner (a system account), as
 * wallets expect; `spl-token` names the mint for token payments.
 */
export function solanaPayUri(request: PaymentRequest): string {
  const params = new URLSearchParams({ amount: request.amount });
  if (request.token !== undefined) params.set("spl-token", request.token);
  params.set("label", request.label);
  if (request.message) params.set("message", request.message.slice(0, 200));
  return `solana:${request.address}?${params.toString().replace(/\+/g, "%20")}`;
}

export const solana: ChainModule<"solana"> = {
  id: "solana",
  name: CHAIN_LABELS.solana.name,
  assets: [...STABLECOIN_ASSETS, { coin: "SOL", decimals: 9, native: true }],
  parseAddress: parseSolanaAddress,
  addressShape: "a base58 public key of 32 bytes",
  paymentUri: solanaPayUri,
  chainPackage: "@gateway/chain-solana",
  // 0.30: the fee plus the rent of creating the destination's token account (~0.00204 SOL) when
  // it is missing.
  manualPayoutNetworkFee: 300_000n,
  mainnet: {
    // mainnet-beta's genesis hash, as `getGenesisHash` answers it (the same value the Solana
    // explorer and the gill SDK's GENESIS_HASH.mainnet hold).
    networkId: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
    tokens: {
      // Circle's USDC and Tether's USDT mints (SPL Token program, 6 decimals).
      USDC: ["EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"],
      USDT: ["Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"],
    },
  },
};
