// The signer's own view of an intent: the proto message checked for completeness and
// turned into plain values, with the asset in one canonical spelling per chain.
import { modeFromProto, type Intent as ProtoIntent } from "@gateway/signer-proto";
import { chainOfProto } from "../chains/index.js";
import { invalid } from "../refusal.js";
import type { IntentAction, SignerIntent } from "../vocabulary.js";

const INTENT_ID = /^[A-Za-z0-9_:.-]{1,128}$/;
const MAX_INDEX = 2 ** 31 - 1;
const MAX_U64 = 2n ** 64n - 1n;

export function parseIntent(proto: ProtoIntent | undefined): SignerIntent {
  if (!proto) invalid("request has no intent");
  if (!INTENT_ID.test(proto.intentId)) invalid("intent_id must be 1-128 characters of [A-Za-z0-9_:.-]");
  const signerChain = chainOfProto(proto.chain);
  if (!signerChain) invalid("intent has no chain");
  const chain = signerChain.name;
  const mode = modeFromProto(proto.mode);
  if (!mode) invalid("intent has no mode");
  if (proto.amount <= 0n || proto.amount > MAX_U64) invalid("amount must be positive");
  const asset = signerChain.canonicalAsset(proto.asset);
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
      const to = signerChain.canonicalAddress(destination, "destination");
      action = { kind: proto.kind.case, destination: to, reference };
      break;
    }
    case "nonceAccount":
      if (!signerChain.nonceAccountAsset) invalid("nonce accounts exist on Solana only");
      if (asset !== signerChain.nonceAccountAsset) invalid("a nonce account is funded in SOL");
      if (proto.kind.value.index > MAX_INDEX) invalid("index must be below 2^31");
      action = { kind: "nonce_account", index: proto.kind.value.index };
      break;
    case undefined:
      invalid("intent has no kind (sweep, refund, payout or nonce_account)");
  }
  const approval = proto.approval
    ? { keyId: proto.approval.keyId, signature: proto.approval.signature }
    : undefined;
  // A retry (`supersedes`) replaces another refund or payout: docs/signer.md, "Retries".
  const replaced = proto.supersedes?.intentId;
  if (
    replaced !== undefined &&
    (!("destination" in action) || !INTENT_ID.test(replaced) || replaced === proto.intentId)
  )
    invalid("supersedes: a refund or payout names another intent id");
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
    ...(intent.proto.supersedes && { supersedes: intent.proto.supersedes.intentId }),
  };
}
