import { enqueueOutbox, newId } from "@gateway/db";
import {
  type Chain,
  type Coin,
  canPay,
  type Mode,
  needsQuote,
  type PricedCoin,
  parseChain,
  parseCoin,
  quotedAmount,
  toCoinUnits,
} from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { applyPaymentMessage, findPayment, type PaymentRow, stateOf } from "@gateway/payments";
import { Router } from "express";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { bodyObject } from "../../http/json-body.js";
import { rejectUnknown, required, withMoneyParam } from "../../http/params.js";
import { usdRate } from "../../pricing.js";
import { streamPaymentChanges } from "./checkout-events.js";
import { checkoutView, type DepositWalletRow, walletView } from "./checkout-view.js";

const OUTCOMES = ["paid", "underpaid", "overpaid", "expired"] as const;

/**
 * The public checkout API, addressed by payment id alone (a UUID is unguessable). It never
 * exposes merchant secrets and never takes an API key.
 */
export function checkoutRoutes(deps: ApiDeps): Router {
  const { sql, config, bus, log } = deps;
  const router = Router();
  const idem = idempotency(sql, (req) => `checkout:${String(req.params.id)}`);

  async function load(id: string) {
    const row = await findPayment(sql, { id });
    if (!row) throw new GatewayError("resource_not_found", { param: "id", message: "No such payment." });
    const [merchant] = await sql<{ business_name: string }[]>`
      select business_name from merchants where id = ${row.merchant_id}`;
    return { row, merchantName: merchant?.business_name ?? "" };
  }

  async function currentWallet(row: PaymentRow): Promise<DepositWalletRow | undefined> {
    const state = stateOf(row);
    if (!state.wallet?.address) return undefined;
    const [wallet] = await sql<DepositWalletRow[]>`
      select chain, coin, address, amount_due, quote_rate_micros, quote_expires_at from deposit_wallets where payment_id = ${row.id} and address = ${state.wallet.address}`;
    return wallet;
  }

  router.get("/payments/checkout/:id", async (req, res) => {
    const { row, merchantName } = await load(String(req.params.id));
    res.json(checkoutView(row, merchantName, await currentWallet(row), deps.solanaMints, deps.prices));
  });

  router.get("/payments/checkout/:id/events", async (req, res) => {
    const { row } = await load(String(req.params.id));
    streamPaymentChanges(req, res, row, deps.paymentWatch);
  });

  router.post("/payments/checkout/:id/generate-wallet", idem, async (req, res) => {
    const body = bodyObject(req.body);
    rejectUnknown(body, ["chain", "coin"]);
    const chain = withMoneyParam("chain", () => parseChain(required(body, "chain")));
    const coin = withMoneyParam("coin", () => parseCoin(required(body, "coin")));
    const { row, merchantName } = await load(String(req.params.id));
    const state = stateOf(row);
    if (!canPay(state.currency, chain, coin)) {
      throw new GatewayError("coin_unsupported", {
        param: "coin",
        message: `${coin} on ${chain} cannot pay a ${state.currency} payment.`,
      });
    }
    if (state.status !== "pending" || row.expires_at.getTime() <= Date.now()) {
      throw new GatewayError("state_conflict", {
        message: `The payment is ${state.status}; no wallet can be generated.`,
      });
    }
    const [existing] = await sql<DepositWalletRow[]>`
      select chain, coin, address, amount_due, quote_rate_micros, quote_expires_at from deposit_wallets where payment_id = ${row.id} and chain = ${chain} and coin = ${coin}`;
    const wallet = needsQuote(state.currency, coin)
      ? await quotedWallet(row, state.amount, state.expiresAt, chain, coin, existing)
      : (existing ??
        (await createWallet(
          row.id,
          row.mode,
          chain,
          coin,
          toCoinUnits(state.amount, state.currency, coin),
          null,
        )));
    const quote =
      wallet.quote_rate_micros !== null && wallet.quote_expires_at !== null
        ? { rate: wallet.quote_rate_micros, expiresAt: wallet.quote_expires_at.getTime() }
        : null;
    const applied = await applyPaymentMessage(
      { sql, topology: bus.topology, log, publicBaseUrl: config.PUBLIC_BASE_URL },
      row.id,
      { type: "wallet_assigned", chain, coin, address: wallet.address, amountDue: wallet.amount_due, quote },
    );
    const rejected = applied?.decision.rejected;
    if (rejected && rejected.code !== "duplicate") {
      throw new GatewayError("state_conflict", { message: "The payment no longer accepts a new wallet." });
    }
    // Only the chosen wallet is watched; an abandoned choice stops being an open address.
    await sql`update deposit_wallets set active = (address = ${wallet.address}) where payment_id = ${row.id}`;
    res.json(walletView(wallet, applied?.row ?? row, merchantName, deps.solanaMints));
  });

  /**
   * The wallet of a quoted choice (a USD payment paid in SOL or SUI): the same quote while it
   * runs, so a repeated call is stable; once it has ended, a fresh quote at the current price on
   * the same address. The quote never outlives the payment.
   */
  async function quotedWallet(
    row: PaymentRow,
    usdCents: bigint,
    paymentExpiresAt: number,
    chain: Chain,
    coin: PricedCoin,
    existing: DepositWalletRow | undefined,
  ): Promise<DepositWalletRow> {
    const now = Date.now();
    if (existing?.quote_expires_at && existing.quote_expires_at.getTime() > now) return existing;
    const rate = usdRate(deps.prices, row.mode, coin);
    const expiresAt = new Date(Math.min(now + config.QUOTE_TTL_SECONDS * 1000, paymentExpiresAt));
    const amountDue = quotedAmount(usdCents, coin, rate);
    if (!existing) return createWallet(row.id, row.mode, chain, coin, amountDue, { rate, expiresAt });
    // Only the request that replaces the ended quote writes; a concurrent one reads its result.
    const [requoted] = await sql<DepositWalletRow[]>`
      update deposit_wallets set amount_due = ${amountDue}, quote_rate_micros = ${rate}, quote_expires_at = ${expiresAt}
      where payment_id = ${row.id} and chain = ${chain} and coin = ${coin}
        and quote_expires_at is not distinct from ${existing.quote_expires_at}
      returning chain, coin, address, amount_due, quote_rate_micros, quote_expires_at`;
    if (requoted) return requoted;
    const [winner] = await sql<DepositWalletRow[]>`
      select chain, coin, address, amount_due, quote_rate_micros, quote_expires_at from deposit_wallets where payment_id = ${row.id} and chain = ${chain} and coin = ${coin}`;
    return winner!;
  }

  async function createWallet(
    paymentId: string,
    mode: Mode,
    chain: Chain,
    coin: Coin,
    amountDue: bigint,
    quote: { rate: bigint; expiresAt: Date } | null,
  ) {
    // The index comes from a sequence per chain and mode: no address is ever handed out twice.
    const [next] = await sql<
      { index: bigint }[]
    >`select nextval(${`deposit_index_${chain}_${mode}`}) as index`;
    const index = next!.index;
    const address = await deps.depositAddresses.derive(chain, mode, index);
    const [wallet] = await sql<DepositWalletRow[]>`
      insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due,
        quote_rate_micros, quote_expires_at)
      values (${newId("dw")}, ${paymentId}, ${mode}, ${chain}, ${coin}, ${index}, ${address}, ${amountDue},
        ${quote?.rate ?? null}, ${quote?.expiresAt ?? null})
      on conflict (payment_id, chain, coin) do nothing
      returning chain, coin, address, amount_due, quote_rate_micros, quote_expires_at`;
    if (wallet) return wallet;
    // A concurrent request for the same choice won; its wallet is the one.
    const [winner] = await sql<DepositWalletRow[]>`
      select chain, coin, address, amount_due, quote_rate_micros, quote_expires_at from deposit_wallets where payment_id = ${paymentId} and chain = ${chain} and coin = ${coin}`;
    return winner!;
  }

  router.post("/payments/checkout/:id/simulate", idem, async (req, res) => {
    const body = bodyObject(req.body);
    rejectUnknown(body, ["outcome"]);
    const outcome = required<unknown>(body, "outcome");
    if (typeof outcome !== "string" || !(OUTCOMES as readonly string[]).includes(outcome)) {
      throw new GatewayError("parameter_invalid", {
        param: "outcome",
        message: `outcome must be one of ${OUTCOMES.join(", ")}.`,
      });
    }
    const { row, merchantName } = await load(String(req.params.id));
    // Live payments cannot be simulated; to this endpoint they do not exist.
    if (row.mode !== "test")
      throw new GatewayError("resource_not_found", { param: "id", message: "No such payment." });
    if (row.status !== "pending") {
      throw new GatewayError("state_conflict", {
        message: `The payment is ${row.status}; only pending payments can be simulated.`,
      });
    }
    // The payment actor lives in settlement: the command travels through the outbox.
    const id = newId("cmd");
    await enqueueOutbox(sql, [
      {
        id,
        subject: bus.topology.subjects.paymentCommand(row.id),
        payload: { payment_id: row.id, message: { type: "simulate", outcome } },
      },
    ]);
    res
      .status(202)
      .json(checkoutView(row, merchantName, await currentWallet(row), deps.solanaMints, deps.prices));
  });

  return router;
}
