// The terms the signer's parts share: a chain's name, an intent once parsed, the operator's
// limits. It imports no part of the signer, so chains/, keys/ and intents/ build on it in a line.
import type { ModeName, ProtoChainName, Intent as ProtoIntent } from "@gateway/signer-proto";

/** A chain as keys, audit entries, caps and gas budgets name it: its wire enum value's name. */
export type ChainName = ProtoChainName;

export type IntentAction =
  | { kind: "sweep"; depositIndex: number }
  | { kind: "refund" | "payout"; destination: string; reference: string }
  /** Solana only: create durable nonce account `index` of the mode's gas wallet. */
  | { kind: "nonce_account"; index: number };

/** An intent checked for completeness, with the asset in one canonical spelling per chain. */
export interface SignerIntent {
  intentId: string;
  chain: ChainName;
  mode: ModeName;
  asset: string;
  amount: bigint;
  action: IntentAction;
  approval: { keyId: string; signature: Uint8Array } | undefined;
  /** The proto message as received, for approval verification. */
  proto: ProtoIntent;
}

/** The operator's bounds on a transaction's fees and on the nonce accounts. */
export interface SignerLimits {
  maxSuiGasBudget: bigint;
  /** MIST per gas unit; a higher price would spend the budget faster than the market needs. */
  maxSuiGasPrice: bigint;
  maxSolanaPriorityFeeLamports: bigint;
  /** Lamports a nonce account is funded with (its rent-exempt minimum). */
  solanaNonceAccountLamports: bigint;
  /** Nonce account indexes run from 0 to this, exclusive. */
  maxSolanaNonceAccounts: number;
}
