// The signer's own view of an intent: the proto message checked for completeness and
// turned into plain values, with the asset in one canonical spelling per chain.
import { Chain, Mode, type Intent as ProtoIntent, RefusalCode } from "@gateway/signer-proto";
import { isValidSuiAddress, normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import { PublicKey } from "@solana/web3.js";
import type { ChainName, ModeName } from "../keys/keyring.js";
import { refuse } from "../refusal.js";

export const SOL_ASSET = "SOL";

export type IntentAction =
  | { kind: "sweep"; depositIndex: number }
  | { kind: "refund" | "payout"; destination: string; reference: string }
  /** Solana only: create durable nonce account `index` of the mode's gas wallet. */
  | { kind: "nonce_account"; index: number };

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

const INTENT_ID = /^[A-Za-z0-9_:.-]{1,128}$/;
const MAX_INDEX = 2 ** 31 - 1;
const MAX_U64 = 2n ** 64n - 1n;

const invalid: (reason: string) => never = (reason) => refuse(RefusalCode.INVALID_INTENT, reason);

// Mints and vaults recur in every intent: remember addresses already found canonical.
const canonicalSolana = new Set<string>();

export function canonicalSolanaAddress(value: string, what: string): string {
  if (canonicalSolana.has(value)) return value;
  let key: PublicKey;
  try {
    key = new PublicKey(value);
  } catch {
    invalid(`${what} is not a Solana address`);
  }
  if (key.toBase58() !== value) invalid(`${what} is not a canonical base58 address`);
  if (canonicalSolana.size >= 10_000) canonicalSolana.clear();
  canonicalSolana.add(value);
  return value;
}

export function canonicalSuiAddress(value: string, what: string): string {
  if (!isValidSuiAddress(value)) invalid(`${what} is not a Sui address`);
  return normalizeSuiAddress(value);
}

export function canonicalSuiCoinType(value: string): string {
  try {
    return normalizeStructTag(value);
  } catch {
    invalid("asset is not a Sui coin type");
  }
}

function canonicalAsset(chain: ChainName, asset: string): string {
  if (chain === "solana") return asset === SOL_ASSET ? asset : canonicalSolanaAddress(asset, "asset");
  return canonicalSuiCoinType(asset);
}

export function parseIntent(proto: ProtoIntent | undefined): SignerIntent {
  if (!proto) invalid("request has no intent");
  if (!INTENT_ID.test(proto.intentId)) invalid("intent_id must be 1-128 characters of [A-Za-z0-9_:.-]");
  const chain: ChainName | undefined =
    proto.chain === Chain.SOLANA ? "solana" : proto.chain === Chain.SUI ? "sui" : undefined;
  if (!chain) invalid("intent has no chain");
  const mode: ModeName | undefined =
    proto.mode === Mode.LIVE ? "live" : proto.mode === Mode.TEST ? "test" : undefined;
  if (!mode) invalid("intent has no mode");
  if (proto.amount <= 0n || proto.amount > MAX_U64) invalid("amount must be positive");
  const asset = canonicalAsset(chain, proto.asset);
  let action: IntentAction;
  switch (proto.kind.case) {
    case "sweep":
      if (proto.kind.value.depositIndex > MAX_INDEX) invalid("deposit_index must be below 2^31");
      action = { kind: "sweep", depositIndex: proto.kind.value.depositIndex };
      break;
    case "refund":
    case "payout": {
      const { destination, reference } = proto.kind.value;
      if (/[\r\n]/.test(reference) || reference.length > 256)
        invalid("reference must be one line of up to 256 characters");
      action = {
        kind: proto.kind.case,
        destination:
          chain === "solana"
            ? canonicalSolanaAddress(destination, "destination")
            : canonicalSuiAddress(destination, "destination"),
        reference,
      };
      break;
    }
    case "nonceAccount":
      if (chain !== "solana") invalid("nonce accounts exist on Solana only");
      if (asset !== SOL_ASSET) invalid("a nonce account is funded in SOL");
      if (proto.kind.value.index > MAX_INDEX) invalid("index must be below 2^31");
      action = { kind: "nonce_account", index: proto.kind.value.index };
      break;
    case undefined:
      invalid("intent has no kind (sweep, refund, payout or nonce_account)");
  }
  const approval = proto.approval
    ? { keyId: proto.approval.keyId, signature: proto.approval.signature }
    : undefined;
  return { intentId: proto.intentId, chain, mode, asset, amount: proto.amount, action, approval, proto };
}

/** The merchant of a payout intent ("" when none was given). */
export function payoutMerchant(intent: SignerIntent): string {
  return intent.proto.kind.case === "payout" ? intent.proto.kind.value.merchantId : "";
}

const effects = new WeakMap<SignerIntent, { fields: Record<string, unknown>; json: string }>();

function effectOf(intent: SignerIntent) {
  let effect = effects.get(intent);
  if (!effect) {
    const { chain, mode, asset, amount, action } = intent;
    // Fields set one by one, in a fixed order: spreading objects costs microseconds per decision.
    const fields: Record<string, unknown> = { kind: action.kind, chain, mode, asset, amount: `${amount}` };
    if (action.kind === "sweep") fields.depositIndex = action.depositIndex;
    else if (action.kind === "nonce_account") fields.index = action.index;
    else [fields.destination, fields.reference] = [action.destination, action.reference];
    // A payout's merchant is part of its effect; intents signed before merchant_id existed have none.
    if (payoutMerchant(intent)) fields.merchantId = payoutMerchant(intent);
    effect = { fields, json: JSON.stringify(fields) };
    effects.set(intent, effect);
  }
  return effect;
}

/** What the intent does, as canonical JSON: equal for two requests exactly when they move the same funds. */
export function intentEffect(intent: SignerIntent): string {
  return effectOf(intent).json;
}

/** The intent as it appears in the audit log (no approval signature bytes, amounts as strings). */
export function auditView(intent: SignerIntent): Record<string, unknown> {
  const expiresAtMs = intent.proto.approval?.expiresAtMs;
  return {
    intentId: intent.intentId,
    ...effectOf(intent).fields,
    approvalKeyId: intent.approval?.keyId,
    ...(intent.approval && expiresAtMs ? { approvalExpiresAtMs: expiresAtMs.toString() } : {}),
  };
}
