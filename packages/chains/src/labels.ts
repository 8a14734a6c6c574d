// What people read for each chain. Apart from the modules (no address codec, no Node API) so the
// checkout and the dashboard bundle this file alone; keyed by the whole `Chain` list, so a chain
// the contracts add does not compile until it has words here.
import type { Chain } from "@gateway/contracts";

export interface ChainLabel {
  /** As customers and merchants read it. */
  name: string;
  /** What an address looks like, shown beside an address field. */
  addressHint: string;
}

export const CHAIN_LABELS = {
  solana: { name: "Solana", addressHint: "A base58 public key, 32 to 44 characters." },
  sui: { name: "Sui", addressHint: "0x followed by 64 hexadecimal digits." },
} as const satisfies { readonly [C in Chain]: ChainLabel };
