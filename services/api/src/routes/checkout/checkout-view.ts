import { type Chain, chainModule } from "@gateway/chains";
import {
  type Coin,
  type Currency,
  coinsForPayment,
  formatAmount,
  formatMicroUsd,
  needsQuote,
  quotedAmount,
  toCoinUnits,
} from "@gateway/domain";
import { type PaymentRow, stateOf } from "@gateway/payments";
import type { PriceService } from "@gateway/prices";
import type { ApiDeps, SolanaMints } from "../../deps.js";
import { usdRateOrNull } from "../../pricing.js";

export interface DepositWalletRow {
  chain: Chain;
  coin: Coin;
  address: string;
  amount_due: bigint;
  /** The quote of a USD payment paid in SOL/SUI (micro-USD per coin, and its end); null otherwise. */
  quote_rate_micros: bigint | null;
  quote_expires_at: Date | null;
}

/** The `quote` of a wallet in the API's shape. */
export function quoteView(wallet: Pick<DepositWalletRow, "quote_rate_micros" | "quote_expires_at">) {
  return wallet.quote_rate_micros !== null && wallet.quote_expires_at !== null
    ? { rate: formatMicroUsd(wallet.quote_rate_micros), expires_at: wallet.quote_expires_at.toISOString() }
    : null;
}

/** What a wallet's links are made of: the stablecoin mints, and the base of Solana Pay transaction requests. */
export interface WalletLinks {
  mints: SolanaMints;
  /** Null when this API has no Solana RPC node to build transactions with. */
  transactionRequestBase: string | null;
}

/** Read when a view is made: a test sets PUBLIC_BASE_URL once its port is known. */
export function walletLinks(deps: Pick<ApiDeps, "solanaMints" | "solana" | "config">): WalletLinks {
  return {
    mints: deps.solanaMints,
    transactionRequestBase: deps.solana ? `${deps.config.PUBLIC_BASE_URL}/solana-pay/tx/` : null,
  };
}

export function walletView(
  wallet: DepositWalletRow,
  row: PaymentRow,
  merchantName: string,
  links: WalletLinks,
) {
  const { mints } = links;
  const amount = formatAmount(wallet.amount_due, wallet.coin);
  return {
    chain: wallet.chain,
    coin: wallet.coin,
    address: wallet.address,
    amount,
    expires_at: row.expires_at.toISOString(),
    payment_uri: chainModule(wallet.chain).paymentUri({
      address: wallet.address,
      coin: wallet.coin,
      amount,
      // Only Solana's module makes a URI today, so its mints are the only token ids needed.
      token: wallet.coin === "USDC" || wallet.coin === "USDT" ? mints[wallet.coin] : undefined,
      label: merchantName,
      message: row.description,
    }),
    transaction_request_url:
      wallet.chain === "solana" && links.transactionRequestBase !== null
        ? `${links.transactionRequestBase}${row.id}`
        : null,
    quote: quoteView(wallet),
  };
}

/** What the checkout page reads: everything a customer needs, nothing a merchant keeps secret. */
export function checkoutView(
  row: PaymentRow,
  merchantName: string,
  wallet: DepositWalletRow | undefined,
  links: WalletLinks,
  prices: PriceService | undefined,
) {
  const state = stateOf(row);
  const currency = state.currency as Currency;
  const completed = state.status === "completed";
  return {
    id: row.id,
    merchant_name: merchantName,
    description: row.description,
    amount: formatAmount(state.amount, currency),
    currency,
    status: state.status,
    is_test: state.mode === "test",
    expires_at: row.expires_at.toISOString(),
    // Only once paid: the page redirects there, and before that it would just invite a skip.
    redirect_url: completed ? row.redirect_url : null,
    options: coinsForPayment(currency).map(({ chain, coin }) => {
      if (!needsQuote(currency, coin)) {
        return {
          chain,
          coin,
          amount: formatAmount(toCoinUnits(state.amount, currency, coin), coin),
          rate: null,
        };
      }
      // An estimate at the current price; generate-wallet locks the rate in a quote.
      const rate = usdRateOrNull(prices, state.mode, coin);
      return {
        chain,
        coin,
        amount: rate === null ? null : formatAmount(quotedAmount(state.amount, coin, rate), coin),
        rate: rate === null ? null : formatMicroUsd(rate),
      };
    }),
    wallet: wallet ? walletView(wallet, row, merchantName, links) : null,
    amount_received: state.wallet ? formatAmount(state.amountReceived, state.wallet.coin) : null,
    refunds: state.refunds.map((r) => ({
      amount: formatAmount(r.amount, r.coin),
      coin: r.coin,
      reason: r.kind,
      status: r.simulated || r.txid !== null ? ("sent" as const) : ("pending" as const),
    })),
  };
}
