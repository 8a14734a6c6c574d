// Friendly intent shapes for callers (settlement, API) and their proto form.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { CHAINS, type Chain as ChainId } from "@gateway/contracts";
import {
  Chain,
  type Intent,
  IntentSchema,
  MODE_TO_PROTO,
  type ModeName,
  type TransferAttestation,
} from "@gateway/signer-proto";

/** The registry's chains; each needs its signer part too (docs/adding-a-chain.md). */
export type ChainName = ChainId;

export interface ApprovalInput {
  keyId: string;
  signature: Uint8Array;
  /** Payouts and destinations: the approval is refused after this time (Unix ms); it is signed. */
  expiresAtMs?: bigint;
}

interface IntentBase {
  /** Unique per effect: the signer signs an id again only for the very same effect. */
  intentId: string;
  chain: ChainName;
  mode: ModeName;
  /** Solana: SPL mint or "SOL". Sui: coin type, e.g. "0x2::sui::SUI". */
  asset: string;
  /** Base units. */
  amount: bigint;
}

export type IntentInput =
  | (IntentBase & { kind: "sweep"; depositIndex: number })
  /** Solana: create the gas wallet's durable nonce account `index` (asset "SOL", amount its rent). */
  | (IntentBase & { kind: "nonce_account"; index: number })
  | (IntentBase & {
      kind: "refund" | "payout";
      destination: string;
      /** The payment (refund) or payout record this moves money for. */
      reference: string;
      /** Payouts: the merchant being paid (allow-list and limits). */
      merchantId?: string;
      approval?: ApprovalInput;
      /** Refunds: the watcher's attestation of the refunded transfer. */
      attestation?: AttestationInput;
      /** A retry: the intent whose transaction failed on chain, and a watcher's attestation of it. */
      supersedes?: SupersessionInput;
    });

/** The intent a retry replaces (signer.proto, `Supersession`). */
export interface SupersessionInput {
  intentId: string;
  failure: { keyId: string; signature: Uint8Array; txid: string };
}

/** A watcher's attestation as the proto carries it (signer.proto, `TransferAttestation`). */
export type AttestationInput = Omit<TransferAttestation, "$typeName" | "$unknown">;

/**
 * Each chain's value of the wire contract's enum, which names it `CHAIN_<NAME>` (signer.proto):
 * a chain of the contracts whose value the generated enum lacks does not compile.
 */
export const CHAIN_TO_PROTO = Object.fromEntries(
  CHAINS.map((chain) => [chain, Chain[chain.toUpperCase() as Uppercase<ChainName>]]),
) as Readonly<Record<ChainName, Chain>>;

/** The chain a proto enum value names, or undefined for one this client does not know. */
export function chainFromProto(chain: Chain): ChainName | undefined {
  return CHAINS.find((name) => CHAIN_TO_PROTO[name] === chain);
}

export function toProtoIntent(input: IntentInput): Intent {
  return create(IntentSchema, {
    intentId: input.intentId,
    chain: CHAIN_TO_PROTO[input.chain],
    mode: MODE_TO_PROTO[input.mode],
    asset: input.asset,
    amount: input.amount,
    kind: protoKind(input),
    ...(input.kind === "sweep" || input.kind === "nonce_account"
      ? {}
      : { approval: protoApproval(input.approval) }),
    ...((input.kind === "refund" || input.kind === "payout") && input.supersedes
      ? { supersedes: input.supersedes }
      : {}),
  });
}

/** The intent's `kind` oneof: what the signer is asked to move, and where. */
function protoKind(input: IntentInput): MessageInitShape<typeof IntentSchema>["kind"] {
  switch (input.kind) {
    case "sweep":
      return { case: "sweep", value: { depositIndex: input.depositIndex } };
    case "nonce_account":
      return { case: "nonceAccount", value: { index: input.index } };
    case "refund":
      return {
        case: "refund",
        value: {
          destination: input.destination,
          reference: input.reference,
          ...(input.attestation ? { attestation: input.attestation } : {}),
        },
      };
    case "payout":
      return {
        case: "payout",
        value: {
          destination: input.destination,
          reference: input.reference,
          merchantId: input.merchantId ?? "",
        },
      };
  }
}

function protoApproval(approval: ApprovalInput | undefined) {
  return (
    approval && {
      keyId: approval.keyId,
      signature: approval.signature,
      expiresAtMs: approval.expiresAtMs ?? 0n,
    }
  );
}
