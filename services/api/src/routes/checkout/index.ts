import { CHAINS, COINS, SIMULATED_OUTCOMES } from "@gateway/contracts";
import { enqueueOutbox, newId } from "@gateway/db";
import {
  type Chain,
  type Coin,
  canPay,
  decide,
  needsQuote,
  type PricedCoin,
  parseChain,
  parseCoin,
  quotedAmount,
  toCoinUnits,
} from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { applyPaymentMessageToRow, isUuid, type PaymentRow, stateOf } from "@gateway/payments";
import { Router } from "express";
import { z } from "zod";
import type { ApiDeps } from "../../deps.js";
import { parsedBy, paymentIdParams } from "../../http/fields.js";
import { idempotency } from "../../http/idempotency.js";
import { ANSWERED, addressedBy, mount } from "../../http/operation.js";
import { CheckoutViewSchema, DepositWalletSchema } from "../../openapi/resources.js";
import { usdRate } from "../../pricing.js";
import { saveReceiptEmail } from "../../receipts/receipt-rows.js";
import { streamPaymentChanges } from "./checkout-events.js";
import { checkoutView, type DepositWalletRow, walletLinks, walletView } from "./checkout-view.js";
import { insertWallet, insertWalletWithState, type WalletColumns } from "./wallet-statements.js";
import { watchChosenWallet } from "./watched-wallet.js";

const NOT_FOUND = "No such payment.";
/** Every checkout operation is addressed by the payment's id alone. */
const checkoutOperation = addressedBy(paymentIdParams, NOT_FOUND);

export const getCheckoutOperation = checkoutOperation({
  method: "get",
  path: "/payments/checkout/{id}",
  operationId: "getCheckout",
  summary: "Public view of a payment for the checkout page",
  auth: "none",
  responses: { 200: CheckoutViewSchema },
});

export const followCheckoutOperation = checkoutOperation({
  method: "get",
  path: "/payments/checkout/{id}/events",
  operationId: "followCheckout",
  summary: "Server-Sent Events: a notice each time the payment changes, until it is final",
  description:
    "A `text/event-stream` of `change` events whose `id` is the payment's version and whose " +
    '`data` is `{"version": n, "status": "…"}`; never the view itself, which the ' +
    "page reads again with `GET /payments/checkout/{id}`. The first event is the current " +
    "version. The stream ends once the status is completed, refunded, expired or failed, " +
    "and after 10 minutes in any case (EventSource reconnects). A comment line every 15 s " +
    "keeps proxies from closing it. The whole stream counts as one request against the rate limit.",
  auth: "none",
  responses: { 200: { stream: "text/event-stream", description: "The stream of change notices." } },
});

export const generateWalletOperation = checkoutOperation({
  method: "post",
  path: "/payments/checkout/{id}/generate-wallet",
  operationId: "generateWallet",
  summary: "Choose chain and coin; returns the one-time deposit wallet",
  auth: "none",
  idempotent: true,
  body: z
    .strictObject({
      chain: parsedBy(z.string(), parseChain, z.enum(CHAINS)).meta({
        description: `${new Intl.ListFormat("en", { type: "disjunction" }).format(CHAINS)}.`,
      }),
      coin: parsedBy(z.string(), parseCoin, z.enum(COINS)).meta({ description: "USDC, USDT, SOL or SUI." }),
    })
    .meta({ id: "GenerateWalletRequest" }),
  codes: { chain: "chain_unsupported", coin: "coin_unsupported" },
  responses: { 200: DepositWalletSchema },
  errors: { 409: "The payment no longer accepts a wallet (not pending or expired)." },
});

export const simulateOperation = checkoutOperation({
  method: "post",
  path: "/payments/checkout/{id}/simulate",
  operationId: "simulatePayment",
  summary: "Test mode only: simulate an outcome",
  auth: "none",
  idempotent: true,
  body: z.strictObject({ outcome: z.enum(SIMULATED_OUTCOMES) }).meta({ id: "SimulateRequest" }),
  responses: { 202: { schema: CheckoutViewSchema, description: "Accepted; the payment changes shortly." } },
  errors: { 404: "No such test payment.", 409: "The payment is not pending." },
});

export const receiptOperation = checkoutOperation({
  method: "post",
  path: "/payments/checkout/{id}/receipt",
  operationId: "requestReceipt",
  summary: "E-mail the customer a receipt when the payment completes, and a notice if it is refunded",
  description:
    "Sent once each, as text and HTML: the receipt (merchant, amount, coin, transaction id with an " +
    "explorer link on mainnet, date) on completion, the notice (each refund's transaction id) on a " +
    "refund, and a notice of its own when an overpayment's surplus is sent back (the surplus, its " +
    "transaction id). A later address replaces an earlier one for the mails not sent yet; a payment " +
    "already completed or refunded gets its mails at once (503 if they cannot be sent now: retry).",
  auth: "none",
  body: z
    .strictObject({ email: z.email().max(254).meta({ description: "Where the customer wants the mails." }) })
    .meta({ id: "ReceiptRequest" }),
  responses: { 200: z.object({ email: z.string() }).meta({ id: "ReceiptRequested" }) },
  errors: { 503: "The receipt of a payment already completed could not be sent just now; retry." },
});

export const checkoutOperations = [
  getCheckoutOperation,
  followCheckoutOperation,
  generateWalletOperation,
  simulateOperation,
  receiptOperation,
] as const;

interface LoadedExtras extends WalletColumns {
  merchant_business_name: string | null;
  wallet_count: number | null;
}

/** A payment's row and the deposit wallet whose columns were selected beside it, apart. */
function splitWallet(found: PaymentRow & WalletColumns): {
  row: PaymentRow;
  wallet: DepositWalletRow | undefined;
} {
  const {
    wallet_chain,
    wallet_coin,
    wallet_address,
    wallet_amount_due,
    wallet_quote_rate_micros,
    wallet_quote_expires_at,
    ...row
  } = found;
  const wallet: DepositWalletRow | undefined =
    wallet_chain !== null && wallet_coin !== null && wallet_address !== null && wallet_amount_due !== null
      ? {
          chain: wallet_chain,
          coin: wallet_coin,
          address: wallet_address,
          amount_due: wallet_amount_due,
          quote_rate_micros: wallet_quote_rate_micros,
          quote_expires_at: wallet_quote_expires_at,
        }
      : undefined;
  return { row: row as PaymentRow, wallet };
}

/**
 * The public checkout API, addressed by payment id alone (a UUID is unguessable). It never
 * exposes merchant secrets and never takes an API key.
 */
export function checkoutRoutes(deps: ApiDeps): Router {
  const { sql, config, bus, log } = deps;
  const router = Router();
  const idem = idempotency(sql, (req) => `checkout:${String(req.params.id)}`);

  /**
   * The payment, its merchant's name and one of its deposit wallets, in one round trip: every
   * checkout call starts here. `wallet`: the current one (the address in the payment's state),
   * or the one of a chain and coin.
   */
  async function load(id: string, wallet: "current" | { chain: Chain; coin: Coin } | "none" = "none") {
    if (!isUuid(id)) throw new GatewayError("resource_not_found", { param: "id", message: NOT_FOUND });
    const choice = wallet !== "none" && wallet !== "current";
    const which =
      wallet === "none"
        ? sql`false`
        : wallet === "current"
          ? sql`d.address = p.state->'wallet'->>'address'`
          : sql`d.chain = ${wallet.chain} and d.coin = ${wallet.coin}`;
    const [found] = await sql<(PaymentRow & LoadedExtras)[]>`
      select p.*, m.business_name as merchant_business_name, w.chain as wallet_chain, w.coin as wallet_coin,
        w.address as wallet_address, w.amount_due as wallet_amount_due,
        w.quote_rate_micros as wallet_quote_rate_micros, w.quote_expires_at as wallet_quote_expires_at,
        ${choice ? sql`(select count(*) from deposit_wallets c where c.payment_id = p.id)` : sql`null`}::int as wallet_count
      from payments p left join merchants m on m.id = p.merchant_id
      left join lateral (
        select chain, coin, address, amount_due, quote_rate_micros, quote_expires_at from deposit_wallets d
        where d.payment_id = p.id and ${which}) w on true
      where p.id = ${id}`;
    if (!found) throw new GatewayError("resource_not_found", { param: "id", message: NOT_FOUND });
    const { merchant_business_name, wallet_count, ...rest } = found;
    const { row, wallet: depositWallet } = splitWallet(rest);
    return {
      row,
      merchantName: merchant_business_name ?? "",
      wallet: depositWallet,
      /** For a chain and coin: how many wallets the payment had, of any choice. */
      walletCount: wallet_count ?? 0,
    };
  }

  mount(router, getCheckoutOperation, [], async ({ params }) => {
    const { row, merchantName, wallet } = await load(params.id, "current");
    return checkoutView(row, merchantName, wallet, walletLinks(deps), deps.prices);
  });

  mount(router, followCheckoutOperation, [], async ({ params }, req, res) => {
    const { row } = await load(params.id);
    streamPaymentChanges(req, res, row, deps.paymentWatch);
    return ANSWERED;
  });

  mount(router, generateWalletOperation, [idem], async ({ params, body: { chain, coin } }) => {
    const { row, merchantName, wallet: existing, walletCount } = await load(params.id, { chain, coin });
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
    let wallet: DepositWalletRow;
    if (existing) {
      wallet = needsQuote(state.currency, coin)
        ? await requotedWallet(row, state.amount, state.expiresAt, coin, existing)
        : existing;
    } else {
      const [amountDue, newWalletQuote] = needsQuote(state.currency, coin)
        ? newQuote(row, state.amount, state.expiresAt, coin)
        : [toCoinUnits(state.amount, state.currency, coin), null];
      const created = await createWallet(row, chain, coin, amountDue, newWalletQuote);
      if (created.row) {
        // A payment that had no wallet when it was read has no other wallet to leave unwatched: a
        // concurrent choice's wallet written meanwhile is marked by its own request, whose state
        // write comes after this one (this one's version check held) and which marks after it.
        if (walletCount > 0) await watchChosenWallet(sql, row.id);
        return walletView(created.wallet, created.row, merchantName, walletLinks(deps));
      }
      wallet = created.wallet;
    }
    const quote =
      wallet.quote_rate_micros !== null && wallet.quote_expires_at !== null
        ? { rate: wallet.quote_rate_micros, expiresAt: wallet.quote_expires_at.getTime() }
        : null;
    const applied = await applyPaymentMessageToRow(
      { sql, topology: bus.topology, log, publicBaseUrl: config.PUBLIC_BASE_URL },
      row,
      { type: "wallet_assigned", chain, coin, address: wallet.address, amountDue: wallet.amount_due, quote },
    );
    const rejected = applied?.decision.rejected;
    if (rejected && rejected.code !== "duplicate") {
      throw new GatewayError("state_conflict", { message: "The payment no longer accepts a new wallet." });
    }
    // Only the chosen wallet is watched; an abandoned choice stops being an open address.
    await watchChosenWallet(sql, row.id);
    return walletView(wallet, applied?.row ?? row, merchantName, walletLinks(deps));
  });

  /**
   * The amount and quote of a new wallet for a quoted choice (a USD payment paid in SOL or SUI):
   * the current price, for at most the quote's time and never past the payment's expiry.
   */
  function newQuote(
    row: PaymentRow,
    usdCents: bigint,
    paymentExpiresAt: number,
    coin: PricedCoin,
  ): [bigint, { rate: bigint; expiresAt: Date }] {
    const rate = usdRate(deps.prices, row.mode, coin);
    const expiresAt = new Date(Math.min(Date.now() + config.QUOTE_TTL_SECONDS * 1000, paymentExpiresAt));
    return [quotedAmount(usdCents, coin, rate), { rate, expiresAt }];
  }

  /**
   * The existing wallet of a quoted choice: the same quote while it runs, so a repeated call is
   * stable; once it has ended, a fresh quote at the current price on the same address.
   */
  async function requotedWallet(
    row: PaymentRow,
    usdCents: bigint,
    paymentExpiresAt: number,
    coin: PricedCoin,
    existing: DepositWalletRow,
  ): Promise<DepositWalletRow> {
    if (existing.quote_expires_at && existing.quote_expires_at.getTime() > Date.now()) return existing;
    const [amountDue, { rate, expiresAt }] = newQuote(row, usdCents, paymentExpiresAt, coin);
    // Only the request that replaces the ended quote writes; a concurrent one reads its result.
    const [requoted] = await sql<DepositWalletRow[]>`
      update deposit_wallets set amount_due = ${amountDue}, quote_rate_micros = ${rate}, quote_expires_at = ${expiresAt}
      where payment_id = ${row.id} and chain = ${existing.chain} and coin = ${coin}
        and quote_expires_at is not distinct from ${existing.quote_expires_at}
      returning chain, coin, address, amount_due, quote_rate_micros, quote_expires_at`;
    if (requoted) return requoted;
    const [winner] = await sql<DepositWalletRow[]>`
      select chain, coin, address, amount_due, quote_rate_micros, quote_expires_at from deposit_wallets where payment_id = ${row.id} and chain = ${existing.chain} and coin = ${coin}`;
    return winner!;
  }

  /**
   * A new wallet for the choice, on an address from the pool (deposit-address-pool.ts). When the
   * assignment changes only the payment's state (the common first choice), the wallet's row and
   * the state go in one statement, the state only if the payment's row is still the version it
   * was decided on and the wallet's insert took: `row` is then the payment as written. Otherwise
   * only the wallet is written (or, if a concurrent request for the same choice won, that one's
   * wallet is read), and the caller applies the assignment the general way.
   */
  async function createWallet(
    payment: PaymentRow,
    chain: Chain,
    coin: Coin,
    amountDue: bigint,
    quote: { rate: bigint; expiresAt: Date } | null,
  ): Promise<{ wallet: DepositWalletRow; row?: PaymentRow }> {
    const taken = await deps.depositAddresses.take(chain, payment.mode);
    const newWallet = {
      paymentId: payment.id,
      mode: payment.mode,
      chain,
      coin,
      derivationIndex: taken.index,
      address: taken.address,
      amountDue,
      quote,
    };
    const decision = decide(stateOf(payment), {
      type: "wallet_assigned",
      chain,
      coin,
      address: taken.address,
      amountDue,
      quote: quote && { rate: quote.rate, expiresAt: quote.expiresAt.getTime() },
    });
    let wallet: DepositWalletRow | undefined;
    if (!decision.rejected && decision.effects.length === 0) {
      const [written] = await insertWalletWithState(sql, newWallet, payment, decision.state);
      if (written) {
        const { row, wallet: inserted } = splitWallet(written);
        if (row.id !== null) return { wallet: inserted!, row };
        wallet = inserted;
      }
    } else {
      [wallet] = await insertWallet(sql, newWallet);
    }
    if (wallet) return { wallet };
    // A concurrent request for the same choice won; its wallet is the one, and the address taken
    // for this one goes back to the pool, unused.
    deps.depositAddresses.giveBack(chain, payment.mode, taken);
    const [winner] = await sql<DepositWalletRow[]>`
      select chain, coin, address, amount_due, quote_rate_micros, quote_expires_at from deposit_wallets where payment_id = ${payment.id} and chain = ${chain} and coin = ${coin}`;
    return { wallet: winner! };
  }

  mount(router, receiptOperation, [], async ({ params, body: { email } }) => {
    const { row } = await load(params.id);
    await saveReceiptEmail(sql, row.id, email);
    try {
      await deps.receipts.sendDue(row.id);
    } catch (cause) {
      throw new GatewayError("service_unavailable", {
        cause,
        message: "The e-mail could not be sent; retry shortly.",
      });
    }
    return { email };
  });

  mount(router, simulateOperation, [idem], async ({ params, body: { outcome } }) => {
    const { row, merchantName, wallet } = await load(params.id, "current");
    // Live payments cannot be simulated; to this endpoint they do not exist.
    if (row.mode !== "test")
      throw new GatewayError("resource_not_found", { param: "id", message: NOT_FOUND });
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
        subject: bus.topology.subjects.paymentCommand("simulate"),
        payload: { payment_id: row.id, message: { type: "simulate", outcome } },
      },
    ]);
    return checkoutView(row, merchantName, wallet, walletLinks(deps), deps.prices);
  });

  return router;
}
