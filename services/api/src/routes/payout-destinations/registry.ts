// The signer keeps each merchant's payout allow-list; the API asks it for changes, always after
// the merchant's e-mailed code, signing each request with its payout approval key.
import type { Chain, Mode } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import type { Logger } from "@gateway/logging";
import {
  type PayoutDestinationEntry,
  type SignerClient,
  SignerRefusedError,
  signDestinationApproval,
} from "@gateway/signer-client";
import { whileSignerRestarts } from "../../signer-addresses.js";
import type { PayoutApprover } from "../payouts/payout-approval.js";

export type { PayoutDestinationEntry };

export interface PayoutDestinations {
  /** Puts `address` on the merchant's allow-list; call only after the merchant's code was checked. */
  request(d: {
    merchantId: string;
    chain: Chain;
    mode: Mode;
    address: string;
    linked: boolean;
  }): Promise<PayoutDestinationEntry>;
  /** Null when the address was never on the list. */
  cancel(d: {
    merchantId: string;
    chain: Chain;
    mode: Mode;
    address: string;
  }): Promise<PayoutDestinationEntry | null>;
  list(merchantId: string): Promise<PayoutDestinationEntry[]>;
}

/** In effect at `now`: on the list, not cancelled, past its delay. */
export function inEffect(entry: PayoutDestinationEntry | undefined, now = new Date()): boolean {
  return entry !== undefined && !entry.cancelled && entry.effectiveAt.getTime() <= now.getTime();
}

/** The entry for one chain, mode and address (addresses are compared in their canonical form). */
export function findDestination(
  entries: PayoutDestinationEntry[],
  d: { chain: Chain; mode: Mode; address: string },
): PayoutDestinationEntry | undefined {
  return entries.find((e) => e.chain === d.chain && e.mode === d.mode && e.address === d.address);
}

const unavailable = (cause: unknown) =>
  new GatewayError("service_unavailable", {
    cause,
    message: "The payout allow-list could not be reached; retry shortly.",
  });

/**
 * Calls the signer through its restarts; an answer of ours (a GatewayError) passes through, any
 * other failure goes to `otherwise`, which throws or says what it means.
 */
async function askSigner<T, U>(call: () => Promise<T>, otherwise: (err: unknown) => U): Promise<T | U> {
  try {
    return await whileSignerRestarts(call);
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    return otherwise(err);
  }
}

export function createPayoutDestinations(options: {
  signer: SignerClient;
  approver: Pick<PayoutApprover, "keyId" | "key">;
  /** How long the approval of one request stays valid (the signer caps it). */
  ttlSeconds: number;
  log: Logger;
}): PayoutDestinations {
  const { signer, approver, log } = options;
  return {
    async request(d) {
      // A fresh approval per attempt: each is used once, and asking again for a listed address
      // changes nothing, so a request whose answer was lost in a signer restart is made again.
      const attempt = () =>
        signer.requestPayoutDestination({
          ...d,
          approval: signDestinationApproval({
            destination: d,
            keyId: approver.keyId,
            privateKey: approver.key,
            expiresAtMs: BigInt(Date.now() + options.ttlSeconds * 1000),
          }),
        });
      return askSigner(attempt, (err) => {
        if (err instanceof SignerRefusedError)
          log.error({ err, merchantId: d.merchantId }, "signer refused a payout destination");
        throw unavailable(err);
      });
    },
    cancel: (d) =>
      askSigner(
        () => signer.cancelPayoutDestination(d),
        (err) => {
          if (/not_found|not on the merchant's allow-list/i.test(String(err))) return null;
          throw unavailable(err);
        },
      ),
    list: (merchantId) =>
      askSigner(
        () => signer.listPayoutDestinations(merchantId),
        (err) => {
          throw unavailable(err);
        },
      ),
  };
}
