// The chains the signer serves: the only place that names them. Adding one is a module beside
// these and a line here (docs/adding-a-chain.md); a chain of the wire enum without one fails to compile.
import type { Chain } from "@gateway/signer-proto";
import type { ChainName } from "../vocabulary.js";
import type { SignerChain } from "./signer-chain.js";
import { solana } from "./solana.js";
import { sui } from "./sui.js";

const BY_NAME: { readonly [Name in ChainName]: SignerChain<Name> } = { solana, sui };

export const SIGNER_CHAINS: readonly SignerChain[] = Object.values(BY_NAME);

export const signerChain = <Name extends ChainName>(name: Name): SignerChain<Name> => BY_NAME[name];

export const chainOfProto = (proto: Chain) => SIGNER_CHAINS.find((chain) => chain.proto === proto);
