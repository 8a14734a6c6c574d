import { CHAINS, COINS } from "@gateway/contracts";
import { canPay, needsQuote, parseChain, parseCoin, toCoinUnits } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { applyPaymentMessageToRow, stateOf } from "@gateway/payments";
import { z } from "zod";
import type { ApiDeps } from "../../deps.js";
import { parsedBy } from "../../http/fields.js";
import type { Handler } from "../../http/operation.js";
import { DepositWalletSchema } from "../../openapi/resources.js";
import { type DepositWalletRow, walletLinks, walletView } from "./checkout-view.js";
import { walletCreator } from "./create-wallet.js";
import { checkoutOperation, loadCheckout } from "./load-checkout.js";
import { newQuote, requotedWallet } from "./wallet-quote.js";
import { watchChosenWallet } from "./watched-wallet.js";

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

export function generateWallet(deps: ApiDeps): Handler<typeof generateWalletOperation> {
  const { sql, config, bus, log } = deps;
  const createWallet = walletCreator(deps);
  return async ({ params, body: { chain, coin } }) => {
    const {
      row,
      merchantName,
      wallet: existing,
      walletCount,
    } = await loadCheckout(sql, params.id, { chain, coin });
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
        ? await requotedWallet(deps, row, state.amount, state.expiresAt, coin, existing)
        : existing;
    } else {
      const [amountDue, newWalletQuote] = needsQuote(state.currency, coin)
        ? newQuote(deps, row, state.amount, state.expiresAt, coin)
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
  };
}
