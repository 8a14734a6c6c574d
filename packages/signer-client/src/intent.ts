// Friendly intent shapes for callers (settlement, API) and their proto form.
import { create } from "@bufbuild/protobuf";
import { CHAINS, type Chain as ChainId } from "@gateway/contracts";
import { Chain, type Intent, IntentSchema, Mode } from "@gateway/signer-proto";

/** The registry's chains; each needs its signer part too (docs/adding-a-chain.md). */
export type ChainName = ChainId;
export type ModeName = "live" | "test";

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
    });

export interface AttestationInput {
  keyId: string;
  signature: Uint8Array;
  transferId: string;
  depositAddress: string;
  sender: string;
  /** The whole transfer's amount (a refund may be part of it). */
  amount: bigint;
}

export const CHAIN_TO_PROTO: Record<ChainName, Chain> = { solana: Chain.SOLANA, sui: Chain.SUI };

/** The chain a proto enum value names, or undefined for one this client does not know. */
export function chainFromProto(chain: Chain): ChainName | undefined {
  return CHAINS.find((name) => CHAIN_TO_PROTO[name] === chain);
}
export const MODE_TO_PROTO: Record<ModeName, Mode> = { live: Mode.LIVE, test: Mode.TEST };

export function toProtoIntent(input: IntentInput): Intent {
  const base = {
    intentId: input.intentId,
    chain: CHAIN_TO_PROTO[input.chain],
    mode: MODE_TO_PROTO[input.mode],
    asset: input.asset,
    amount: input.amount,
  };
  if (input.kind === "sweep") {
    return create(IntentSchema, {
      ...base,
      kind: { case: "sweep", value: { depositIndex: input.depositIndex } },
    });
  }
  if (input.kind === "nonce_account") {
    return create(IntentSchema, { ...base, kind: { case: "nonceAccount", value: { index: input.index } } });
  }
  const approval = input.approval && {
    keyId: input.approval.keyId,
    signature: input.approval.signature,
    expiresAtMs: input.approval.expiresAtMs ?? 0n,
  };
  if (input.kind === "refund") {
    return create(IntentSchema, {
      ...base,
      kind: {
        case: "refund",
        value: {
          destination: input.destination,
          reference: input.reference,
          ...(input.attestation ? { attestation: input.attestation } : {}),
        },
      },
      approval,
    });
  }
  if (input.kind === "payout") {
    return create(IntentSchema, {
      ...base,
      kind: {
        case: "payout",
        value: {
          destination: input.destination,
          reference: input.reference,
          merchantId: input.merchantId ?? "",
        },
      },
      approval,
    });
  }
  return create(IntentSchema, {
    ...base,
    kind: { case: input.kind, value: { destination: input.destination, reference: input.reference } },
    approval,
  });
}
