// A network's identity as an operator writes it and as an endpoint reports it. Solana has one
// spelling (the base58 genesis hash); Sui's gRPC API reports the genesis checkpoint digest in
// base58, while explorers and the JSON-RPC print its first four bytes in hex, so both are taken.

import type { Chain } from "@gateway/contracts";
import bs58 from "bs58";
import { chainModule } from "./registry.js";

const SHORT_SUI_ID = /^(0x)?[0-9a-fA-F]{8}$/;

/** Whether `declared` (an operator's value) names the network whose endpoint reported `reported`. */
export function sameNetworkId(chain: Chain, declared: string, reported: string): boolean {
  if (declared === reported) return true;
  if (chain !== "sui" || !SHORT_SUI_ID.test(declared)) return false;
  try {
    const prefix = Buffer.from(bs58.decode(reported).subarray(0, 4)).toString("hex");
    return prefix === declared.replace(/^0x/, "").toLowerCase();
  } catch {
    return false;
  }
}

/** Whether `id` is the chain's mainnet, in any spelling sameNetworkId accepts. */
export function isMainnetId(chain: Chain, id: string): boolean {
  return sameNetworkId(chain, id, chainModule(chain).mainnet.networkId);
}
