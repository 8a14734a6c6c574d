// Everything the signer knows about one chain, in one object per chain (chains/<chain>.ts); the
// other modules look chains up in SIGNER_CHAINS and never name one (docs/adding-a-chain.md).
import type { Chain, SignRequest } from "@gateway/signer-proto";
import type { ChainName, SignerIntent, SignerLimits } from "../vocabulary.js";

/** One derived key (keys/keyring.ts), as a chain's module signs with it. */
export interface SigningKey {
  readonly chain: ChainName;
  readonly address: string;
  readonly publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

export interface SignatureValue {
  address: string;
  signature: Uint8Array;
  serialized: string;
}

/** Who a transaction may involve, as addresses. */
export interface Parties {
  gas: string;
  /** The key whose funds move: the deposit address (sweep) or the vault (refund, payout). */
  source: string;
  /** The source's public key: a new deposit's address would otherwise be decoded from base58. */
  sourceKey: Uint8Array;
  /** The owner receiving the funds: the vault (sweep, nonce account) or the intent's destination. */
  destination: string;
}

/** What a checked transaction needs and binds. */
export interface CheckedTransaction {
  /** Signer addresses, fee payer first on Solana, sender first on Sui. */
  signers: string[];
  /** Inputs only one intent may ever spend (a Solana nonce value, a Sui object version). */
  locks: string[];
  /** The most the gas wallet can lose to this transaction, in its chain's base unit. */
  worstCaseFee: bigint;
}

export interface SignerChain<Name extends ChainName = ChainName> {
  /** The chain's name in keys, audit entries, caps and gas budgets: the registry's (packages/chains). */
  readonly name: Name;
  /** Its value in the wire contract's `enum Chain` (proto/gateway/signer/v1/signer.proto). */
  readonly proto: Chain;
  /** SLIP-44 coin type: keys are m/44'/<coinType>'/<branch>'/<...path>'/<index>' (docs/signer.md). */
  readonly coinType: number;
  /** Hardened levels between the branch and the index. */
  readonly path: readonly number[];
  address(publicKey: Uint8Array): string;
  /** The one spelling of an address, so lists and intents compare equal; refuses INVALID_INTENT naming `what`. */
  canonicalAddress(value: string, what: string): string;
  /** The one spelling of an intent's asset; refuses INVALID_INTENT. */
  canonicalAsset(value: string): string;
  /** The signer's spelling of an address a trusted party signed (a watcher's attested sender), if not as given. */
  spellAddress?(value: string): string;
  /** The signer's spelling of a configured asset (SIGNER_CAPS), if not as given; throws an Error naming the problem. */
  configAsset?(value: string): string;
  /** The asset a nonce account is funded in, on a chain that has them (nonce_account intents). */
  readonly nonceAccountAsset?: string;
  /** Refuses the transaction unless its effect is exactly the intent's. */
  check(request: SignRequest, intent: SignerIntent, who: Parties, limits: SignerLimits): CheckedTransaction;
  sign(key: SigningKey, transaction: Uint8Array): SignatureValue;
  /**
   * The bytes of the id the chain will know the transaction by, recorded (base64, cheaper than
   * base58 on the signing path) with its first signing so the signer's record can be matched to the
   * chain without it (docs/operations.md, "Restoring PostgreSQL"); `signer record` spells it base58.
   */
  txid(transaction: Uint8Array, signatures: SignatureValue[]): Uint8Array;
  /** Worst-case fees per UTC day in the chain's base unit, unless SIGNER_GAS_BUDGETS says otherwise. */
  readonly defaultGasBudget: bigint;
}
