// The canonical bytes an approver signs for a refund or payout intent. Both the signer
// (to verify) and the approvers (to sign, through @gateway/signer-client) use this one
// function, so the encoding cannot drift between them.
import {
  Chain,
  type Intent,
  type Mode,
  type RequestPayoutDestinationRequest,
} from "./gen/gateway/signer/v1/signer_pb.js";
import { type ModeName, modeFromProto } from "./mode.js";

export const APPROVAL_DOMAIN = "gateway.signer.v1.approval";
export const DESTINATION_DOMAIN = "gateway.signer.v1.destination";

export class ApprovalEncodingError extends Error {
  override readonly name = "ApprovalEncodingError";
}

/** A chain as the signed messages spell it: its enum value's name in lower case (`CHAIN_SUI`: "sui"). */
export type ProtoChainName = Exclude<Lowercase<keyof typeof Chain>, "unspecified">;

function chainName(chain: Chain): ProtoChainName {
  const name: string | undefined = Chain[chain];
  if (name === undefined || chain === Chain.UNSPECIFIED)
    throw new ApprovalEncodingError("intent has no chain");
  return name.toLowerCase() as ProtoChainName;
}

function modeName(mode: Mode): ModeName {
  const name = modeFromProto(mode);
  if (!name) throw new ApprovalEncodingError("intent has no mode");
  return name;
}

/**
 * One `name=value` line per field, in a fixed order, after a domain line, so a signature
 * made for this purpose can never be mistaken for one over other bytes. Values may not
 * contain line breaks, which keeps the encoding unambiguous without escaping.
 */
export function approvalMessage(intent: Intent): Uint8Array {
  const kind = intent.kind;
  if (kind.case !== "refund" && kind.case !== "payout") {
    throw new ApprovalEncodingError("only refund and payout intents carry approvals");
  }
  const fields: [string, string][] = [
    ["kind", kind.case],
    ["intent_id", intent.intentId],
    ["chain", chainName(intent.chain)],
    ["mode", modeName(intent.mode)],
    ["asset", intent.asset],
    ["amount", intent.amount.toString()],
    ["destination", kind.value.destination],
    ["reference", kind.value.reference],
  ];
  // A payout approval is bound to its merchant and expires (refund approvals are unchanged).
  if (kind.case === "payout") {
    fields.push(
      ["merchant_id", kind.value.merchantId],
      ["expires_at_ms", (intent.approval?.expiresAtMs ?? 0n).toString()],
    );
  }
  // A retry's approval names the intent it replaces, so no approval of a first attempt serves one.
  if (intent.supersedes) fields.push(["supersedes", intent.supersedes.intentId]);
  return encodeLines(APPROVAL_DOMAIN, fields);
}

/**
 * What the API signs (after the merchant's e-mailed code) to put `address` on the merchant's
 * payout allow-list: a domain of its own, so no intent approval can be taken for one.
 */
export function destinationMessage(request: RequestPayoutDestinationRequest): Uint8Array {
  return encodeLines(DESTINATION_DOMAIN, [
    ["merchant_id", request.merchantId],
    ["chain", chainName(request.chain)],
    ["mode", modeName(request.mode)],
    ["address", request.address],
    ["linked", request.linked ? "true" : "false"],
    ["expires_at_ms", (request.approval?.expiresAtMs ?? 0n).toString()],
  ]);
}

function encodeLines(domain: string, fields: [string, string][]): Uint8Array {
  const lines = [domain];
  for (const [name, value] of fields) {
    if (/[\r\n]/.test(value)) throw new ApprovalEncodingError(`${name} contains a line break`);
    lines.push(`${name}=${value}`);
  }
  return new TextEncoder().encode(lines.join("\n"));
}

export const ATTESTATION_DOMAIN = "gateway.signer.v1.attestation";

/** What a watcher attests of a final transfer: the signer's spelling of chain, mode and asset. */
export interface AttestedTransfer {
  chain: ProtoChainName;
  mode: ModeName;
  /** Solana: the mint or "SOL". Sui: the normalized coin type. */
  asset: string;
  transferId: string;
  depositAddress: string;
  sender: string;
  amount: bigint;
}

/** The canonical bytes a watcher signs, in the same one-field-per-line form as approvals. */
export function attestationMessage(t: AttestedTransfer): Uint8Array {
  return encodeLines(ATTESTATION_DOMAIN, [
    ["chain", t.chain],
    ["mode", t.mode],
    ["asset", t.asset],
    ["transfer_id", t.transferId],
    ["deposit_address", t.depositAddress],
    ["sender", t.sender],
    ["amount", t.amount.toString()],
  ]);
}

export const FAILURE_DOMAIN = "gateway.signer.v1.failed";

/** What a watcher attests of a transaction that was executed at finality with an error. */
export interface FailedTransaction {
  chain: ProtoChainName;
  mode: ModeName;
  /** The chain's spelling of the transaction's id: base58 on Solana (its first signature) and Sui. */
  txid: string;
}

/** The canonical bytes a watcher signs for a failed transaction (a domain of its own). */
export function failureMessage(t: FailedTransaction): Uint8Array {
  return encodeLines(FAILURE_DOMAIN, [
    ["chain", t.chain],
    ["mode", t.mode],
    ["txid", t.txid],
  ]);
}
