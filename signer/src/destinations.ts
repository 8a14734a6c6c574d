// The payout allow-list RPCs (request, cancel, list), as the API calls them: turns the request
// into the payout policy's terms, audits each change or refusal, and answers in proto shapes.
// The decisions themselves (delay, approval, one use) are the policy's (policy/payouts.ts).
import { createHash } from "node:crypto";
import {
  type CancelPayoutDestinationRequest,
  type Chain,
  MODE_TO_PROTO,
  type Mode,
  type ModeName,
  modeFromProto,
  type PayoutDestination,
  RefusalCode,
  type RequestPayoutDestinationRequest,
} from "@gateway/signer-proto";
import type { Logger } from "pino";
import { chainName, modeName } from "./addresses.js";
import { chainOfProto, signerChain } from "./chains/index.js";
import type { ApprovalVerifier } from "./intents/approvals.js";
import {
  DESTINATION_CANCELLED,
  DESTINATION_REQUESTED,
  type DestinationRecord,
  type PayoutPolicy,
} from "./policy/payouts.js";
import { Refusal, refusalCodeName, refuse } from "./refusal.js";
import type { AuditLog } from "./state/audit-log.js";
import type { ChainName } from "./vocabulary.js";

export type DestinationOutcome =
  | { ok: true; destination: Omit<PayoutDestination, "$typeName"> }
  | { ok: false; refusal: { code: RefusalCode; reason: string } };

export class NotFoundError extends Error {
  override readonly name = "NotFoundError";
}

function toProtoDestination(d: DestinationRecord): Omit<PayoutDestination, "$typeName"> {
  return {
    merchantId: d.merchantId,
    chain: signerChain(d.chain).proto,
    mode: MODE_TO_PROTO[d.mode],
    address: d.address,
    linked: d.linked,
    requestedAtMs: BigInt(d.requestedAt),
    effectiveAtMs: BigInt(d.effectiveAt),
    cancelled: d.cancelled,
    cancelledAtMs: BigInt(d.cancelledAt),
  };
}

export interface DestinationDesk {
  /** Puts an address on a merchant's payout allow-list (audited); sync before answering. */
  requestPayoutDestination(request: RequestPayoutDestinationRequest): DestinationOutcome;
  /** Takes an address off the allow-list (audited). Throws NotFoundError for an unknown one. */
  cancelPayoutDestination(request: CancelPayoutDestinationRequest): DestinationOutcome;
  listPayoutDestinations(merchantId: string): Omit<PayoutDestination, "$typeName">[];
}

interface DeskDeps {
  approvals: ApprovalVerifier;
  audit: AuditLog;
  log: Logger;
  payouts?: PayoutPolicy | undefined;
  now: () => Date;
}

export function createDestinationDesk(deps: DeskDeps): DestinationDesk {
  const { approvals, payouts, now } = deps;
  return {
    requestPayoutDestination(request) {
      const approval = request.approval;
      return destinationDecision(
        deps,
        "RequestPayoutDestination",
        request,
        {
          linked: request.linked,
          approvalKeyId: approval?.keyId,
          approvalExpiresAtMs: approval?.expiresAtMs.toString(),
        },
        (policy, chain, mode) => {
          approvals.verifyDestination(request);
          const { audit: fields } = policy.requestDestination(
            {
              merchantId: request.merchantId,
              chain,
              mode,
              address: request.address,
              linked: request.linked,
              approvalExpiresAtMs: approval?.expiresAtMs ?? 0n,
              approvalDigest: createHash("sha256")
                .update(approval?.signature ?? new Uint8Array())
                .digest("hex"),
            },
            now(),
          );
          return { decision: DESTINATION_REQUESTED, ...fields };
        },
      );
    },

    cancelPayoutDestination(request) {
      return destinationDecision(deps, "CancelPayoutDestination", request, {}, (policy, chain, mode) => {
        const change = policy.cancelDestination(
          { merchantId: request.merchantId, chain, mode, address: request.address },
          now(),
        );
        if (!change) throw new NotFoundError("the address is not on the merchant's allow-list");
        return { decision: DESTINATION_CANCELLED, ...change.audit };
      });
    },

    listPayoutDestinations(merchantId) {
      return (payouts?.listDestinations(merchantId) ?? []).map(toProtoDestination);
    },
  };
}

/** Runs one allow-list change; a refusal is audited with what was asked and who the merchant is. */
function destinationDecision(
  { audit, log, payouts }: DeskDeps,
  rpc: string,
  request: { merchantId: string; chain: Chain; mode: Mode; address: string },
  extra: Record<string, unknown>,
  change: (
    policy: PayoutPolicy,
    chain: ChainName,
    mode: ModeName,
  ) => { decision: string; destination: DestinationRecord; approval?: string },
): DestinationOutcome {
  const view = {
    rpc,
    merchantId: request.merchantId,
    chain: chainOfProto(request.chain)?.name ?? String(request.chain),
    mode: modeFromProto(request.mode) ?? String(request.mode),
    address: request.address,
    ...extra,
  };
  const chain = chainName(request.chain);
  const mode = modeName(request.mode);
  try {
    if (!payouts) refuse(RefusalCode.UNSPECIFIED, "payout destinations are not enabled on this signer");
    const decision = change(payouts, chain, mode);
    audit.append({ ...decision, intent: view });
    const { destination } = decision;
    log.info(
      { ...view, effectiveAt: new Date(destination.effectiveAt).toISOString() },
      "payout destination changed",
    );
    return { ok: true, destination: toProtoDestination(destination) };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    audit.append({
      decision: "refused",
      intent: view,
      code: refusalCodeName(error.code),
      reason: error.message,
    });
    log.warn(
      { ...view, code: refusalCodeName(error.code), reason: error.message },
      "payout destination refused",
    );
    return { ok: false, refusal: { code: error.code, reason: error.message } };
  }
}
