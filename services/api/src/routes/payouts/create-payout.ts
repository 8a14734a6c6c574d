import { newId } from "@gateway/db";
import { parseAmount } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { InsufficientBalanceError, merchantBalances } from "@gateway/ledger";
import {
  MANUAL_PAYOUT_NETWORK_FEE,
  type PayoutState,
  type PayoutSubjects,
  createPayout as recordPayout,
  toPayoutResource,
} from "@gateway/payouts";
import { z } from "zod";
import { mailOwners } from "../../accounts/second-factor.js";
import { createAudit, memberActor } from "../../auth/audit.js";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { withMoneyParam } from "../../http/fields.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { payoutDestinationRequestedMail, payoutRequestedMail } from "../../mail/messages.js";
import { PayoutSchema } from "../../openapi/resources.js";
import { mailedCode } from "../auth/fields.js";
import { LIMITS, throttle } from "../auth/throttle.js";
import {
  findDestination,
  inEffect,
  type PayoutDestinationEntry,
  type PayoutDestinations,
} from "../payout-destinations/registry.js";
import { chainParam } from "../payout-wallets/wallet-address.js";
import { resolveDestination } from "./destination.js";
import { approvePayout, type PayoutApprover } from "./payout-approval.js";
import type { PayoutCodes } from "./payout-codes.js";
import { payoutCoinField, payoutMode } from "./payout-params.js";

/** Thrown inside the code's transaction, so the code stays live and nothing is recorded. */
class DestinationPendingError extends Error {
  constructor(readonly entry: PayoutDestinationEntry) {
    super("destination pending");
  }
}

const notAllowed = (entry: PayoutDestinationEntry | undefined) =>
  new GatewayError("destination_not_allowed", {
    param: "destination_address",
    message:
      entry && !entry.cancelled
        ? `This address is on your payout allow-list from ${entry.effectiveAt.toISOString()}; pay out to it then, with a new code.`
        : "This address is not on your payout allow-list.",
  });

const insufficient = (available: bigint) =>
  new GatewayError("insufficient_balance", {
    param: "amount",
    message: `The amount exceeds the available balance (${available} base units).`,
  });

export const createPayoutOperation = defineOperation({
  method: "post",
  path: "/payouts",
  operationId: "createPayout",
  summary: "Pay out from the available balance with the e-mailed code; the amount is reserved at once",
  auth: "bearer",
  idempotent: true,
  body: z
    .strictObject({
      chain: chainParam,
      coin_symbol: payoutCoinField,
      amount: z.union([z.number(), z.string()]).meta({
        description: "Leaves the balance; includes the network fee. At most the coin's decimals.",
      }),
      destination_address: z
        .string()
        .nullish()
        .meta({ description: "Defaults to the chain's payout wallet." }),
      otp: mailedCode,
      mode: payoutMode,
    })
    .meta({ id: "CreatePayoutRequest" }),
  codes: {
    chain: "chain_unsupported",
    coin_symbol: "coin_unsupported",
    amount: "amount_invalid",
    destination_address: "address_invalid",
  },
  responses: { 201: PayoutSchema },
  errors: {
    409: "Idempotency-Key reused with another body, or `destination_not_allowed`: the address is not on the payout allow-list or not in effect yet (an address asked for with this code joins it after the delay).",
  },
});

type CreatePayoutDeps = Pick<ApiDeps, "sql" | "limiter" | "mailer" | "log" | "config" | "payoutDestinations">;
type CreatePayoutBody = Parameters<Handler<typeof createPayoutOperation>>[0]["body"];

/** A request that passed every check made before the code: what the code's transaction records. */
interface CheckedPayout
  extends Pick<
    PayoutState,
    "merchantId" | "mode" | "chain" | "coin" | "amount" | "networkFee" | "destination"
  > {
  /** The signer's allow-list, for live payouts only: test payouts never reach the signer. */
  allowList: PayoutDestinations | undefined;
  listed: PayoutDestinationEntry | undefined;
}

/**
 * `POST /payouts` → 201, `pending`. Spending the mailed code, recording, reserving and asking
 * settlement to execute are one transaction, so all of it happens or none (docs/payouts.md has
 * the fee, the approval and the allow-list rules).
 */
export function createPayoutHandler(
  deps: CreatePayoutDeps,
  codes: PayoutCodes,
  subjects: PayoutSubjects,
  approver?: PayoutApprover,
): Handler<typeof createPayoutOperation> {
  const { sql, limiter, mailer, log, config } = deps;
  const audit = createAudit(config.TRUSTED_PROXIES);
  return async ({ body }, req, res) => {
    const session = sessionPrincipal(res);
    const { merchantId } = session;
    const checked = await checkBeforeCode(deps, merchantId, body);
    const { mode, chain, coin, amount, networkFee, destination, allowList, listed } = checked;
    await throttle(limiter, [[`payout-otp:account:${merchantId}`, LIMITS.codeTriesPerAccount]]);
    let requested: PayoutDestinationEntry | undefined;
    try {
      const id = newId("po");
      const row = await codes.consume(merchantId, { mode, chain, destination }, body.otp, async (tx) => {
        if (allowList && !inEffect(listed)) {
          // No explicit address means the linked wallet: it is asked for as the linked one.
          const linked = body.destination_address === undefined || body.destination_address === null;
          requested = await allowList.request({ merchantId, chain, mode, address: destination, linked });
          if (!inEffect(requested)) throw new DestinationPendingError(requested);
        }
        const details = { payout: id, mode, chain, coin, amount: String(amount), destination };
        await audit.record(tx, { ...memberActor(session), action: "payout.requested", details }, req);
        const approval =
          mode === "live" && approver ? approveManual(approver, config, { ...checked, id }) : null;
        const payout = { id, merchantId, mode, chain, coin, amount, networkFee, destination };
        return recordPayout(tx, subjects, { ...payout, approval, kind: "manual" });
      });
      if (requested) notifyRequested(deps, merchantId, requested);
      const resource = toPayoutResource(row);
      await mailOwners({ sql, mailer, log }, merchantId, (to) =>
        payoutRequestedMail(to, { actor: session.email, ...resource, coin, destination, mode }),
      );
      return resource;
    } catch (err) {
      if (err instanceof DestinationPendingError) {
        notifyRequested(deps, merchantId, err.entry);
        throw notAllowed(err.entry);
      }
      // A concurrent payout took the balance first; the code stays live (the transaction rolled back).
      if (err instanceof InsufficientBalanceError) throw insufficient(err.available);
      throw err;
    }
  };
}

/**
 * The checks made before the code is tried, so that a request bound to fail does not cost a try:
 * the destination, the amount against the network fee and the available balance (checked again
 * under lock), and an allow-listed address still in its delay.
 */
async function checkBeforeCode(
  { sql, payoutDestinations }: CreatePayoutDeps,
  merchantId: string,
  body: CreatePayoutBody,
): Promise<CheckedPayout> {
  const coin = body.coin_symbol;
  const amount = withMoneyParam("amount", () => parseAmount(body.amount, coin));
  const mode = body.mode ?? "live";
  const { chain, destination } = await resolveDestination(sql, merchantId, body);
  const networkFee = MANUAL_PAYOUT_NETWORK_FEE[chain];
  if (amount <= networkFee) {
    throw new GatewayError("amount_too_small", {
      param: "amount",
      message: `A ${chain} payout must be more than its network fee of ${networkFee} base units.`,
    });
  }
  const balance = (await merchantBalances(sql, merchantId, mode)).find(
    (b) => b.chain === chain && b.coin === coin,
  );
  if ((balance?.available ?? 0n) < amount) throw insufficient(balance?.available ?? 0n);
  const allowList = mode === "live" ? payoutDestinations : undefined;
  const listed = allowList
    ? findDestination(await allowList.list(merchantId), { chain, mode, address: destination })
    : undefined;
  if (listed && !listed.cancelled && !inEffect(listed)) throw notAllowed(listed);
  return { merchantId, mode, chain, coin, amount, networkFee, destination, allowList, listed };
}

/** The API's approval of the payout's intent, valid for API_PAYOUT_APPROVAL_TTL_SECONDS. */
function approveManual(
  approver: PayoutApprover,
  config: CreatePayoutDeps["config"],
  p: CheckedPayout & { id: string },
) {
  const expiresAt = new Date(Date.now() + config.API_PAYOUT_APPROVAL_TTL_SECONDS * 1000);
  const { id, merchantId, mode, chain, coin, destination } = p;
  const netAmount = p.amount - p.networkFee;
  return (
    approvePayout(approver, { id, merchantId, mode, chain, coin, netAmount, destination, expiresAt }) ?? null
  );
}

/** The merchant is told of every address added to the allow-list, as a tripwire. */
function notifyRequested(
  { sql, mailer, log }: CreatePayoutDeps,
  merchantId: string,
  entry: PayoutDestinationEntry,
): void {
  void sql<{ email: string }[]>`select email from merchants where id = ${merchantId}`
    .then(([m]) =>
      m
        ? mailer.send(payoutDestinationRequestedMail(m.email, entry.chain, entry.address, entry.effectiveAt))
        : undefined,
    )
    .catch((err: unknown) => log.warn({ err, merchantId }, "payout destination notice not sent"));
}
