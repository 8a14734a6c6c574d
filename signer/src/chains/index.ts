// The chains the signer serves: the only place that names them. Adding one is a module beside
// these and a line here (docs/adding-a-chain.md).
import type { Chain } from "@gateway/signer-proto";
import { solana } from "./solana.js";
import { sui } from "./sui.js";

export const SIGNER_CHAINS = [solana, sui] as const;

export type ChainName = (typeof SIGNER_CHAINS)[number]["name"];

export const signerChain = (name: ChainName) => SIGNER_CHAINS.find((chain) => chain.name === name)!;

export const chainOfProto = (proto: Chain) => SIGNER_CHAINS.find((chain) => chain.proto === proto);
