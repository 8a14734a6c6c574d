import { readFileSync } from "node:fs";
import { Code, ConnectError } from "@connectrpc/connect";
import { retryWhileTransient } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import {
  type DepositAddressOutcome,
  type DepositAddressRequest,
  DepositIndexIssuedError,
  type SignerClient,
  SignerRefusedError,
} from "@gateway/signer-client";
import type { DepositAddressDeriver } from "./deposit-address-pool.js";

/** Failures that mean "the signer is not there right now" (a restart), not "it said no". */
const TRANSIENT = new Set([
  // A signer killed mid-call resets its HTTP/2 stream with CANCEL, which the client reports as
  // Canceled although nobody here cancelled: before, that call was answered 500 (chaos run 8).
  Code.Canceled,
  Code.Unavailable,
  Code.DeadlineExceeded,
  Code.Aborted,
  Code.Unknown,
  Code.Internal,
]);

/**
 * Deposit addresses come from the signer, the only holder of the seed, many indices of one branch
 * in one call (the pool, deposit-address-pool.ts, asks a batch at a time). A call that failed
 * because the signer was restarting is made again, for up to `retryMs`; after that the customer
 * gets a 503 to retry on. If the first call did reach the signer, the second finds its indices
 * handed out (DepositIndexIssuedError outcomes) and the pool takes new ones.
 */
export function signerDepositAddresses(client: SignerClient, retryMs = 10_000): DepositAddressDeriver {
  return {
    async derive(chain, mode, indices) {
      const outcomes: DepositAddressOutcome[] = [];
      // The signer takes up to 1,000 derivations a call.
      for (let at = 0; at < indices.length; at += MAX_DERIVATIONS_PER_CALL) {
        const requests = indices
          .slice(at, at + MAX_DERIVATIONS_PER_CALL)
          .map((index): DepositAddressRequest => ({ chain, mode, index: Number(index) }));
        outcomes.push(...(await whileSignerRestarts(() => client.deriveDepositAddresses(requests), retryMs)));
      }
      return outcomes;
    },
  };
}

/** At most this many derivations per call (the signer takes up to 1,000). */
const MAX_DERIVATIONS_PER_CALL = 256;

/**
 * Makes a call again while the signer is restarting, for up to `retryMs`; then 503. Only for
 * calls that are safe to repeat (each attempt builds its own request).
 */
export async function whileSignerRestarts<T>(call: () => Promise<T>, retryMs = 10_000): Promise<T> {
  return retryWhileTransient(call, {
    // A refusal is the signer's answer, not its absence.
    transient: (err) =>
      !(err instanceof SignerRefusedError || err instanceof DepositIndexIssuedError) &&
      TRANSIENT.has(ConnectError.from(err).code),
    retryMs,
    giveUp: (err) => new GatewayError("service_unavailable", { cause: err }),
  });
}

/** Reads the mTLS material named in the config; all three files or none. */
export function signerTls(config: {
  SIGNER_CA_FILE?: string | undefined;
  SIGNER_CERT_FILE?: string | undefined;
  SIGNER_KEY_FILE?: string | undefined;
}) {
  const { SIGNER_CA_FILE: ca, SIGNER_CERT_FILE: cert, SIGNER_KEY_FILE: key } = config;
  if (!ca || !cert || !key) return undefined;
  return { ca: readFileSync(ca), cert: readFileSync(cert), key: readFileSync(key) };
}
