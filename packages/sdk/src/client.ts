import type {
  CheckoutView,
  CreatedWebhookEndpoint,
  CreatePaymentLinkRequest,
  CreatePaymentParams,
  CreateWebhookParams,
  DepositWallet,
  Event,
  List,
  ListPaymentsParams,
  Payment,
  PaymentLink,
  SimulatedOutcome,
  WebhookDelivery,
  WebhookEndpoint,
} from "./gen/types.js";
import { type HttpOptions, query, type RequestOptions, request, requestText } from "./http.js";

export interface GatewayOptions {
  /** `gw_test_…` or `gw_live_…`: the key's prefix selects the mode. Server-side only. */
  apiKey: string;
  /** e.g. `https://pay.example.com`. */
  baseUrl: string;
  maxRetries?: number;
  timeoutMs?: number;
  /** Another fetch (a proxy agent, a test double of the network). */
  fetch?: typeof fetch;
  retryBaseMs?: number;
}

/** Walks every page of a list, newest first, fetching the next page only when needed. */
async function* paginate<T extends { id: string }>(fetchPage: (startingAfter?: string) => Promise<List<T>>) {
  let startingAfter: string | undefined;
  for (;;) {
    const page = await fetchPage(startingAfter);
    yield* page.data;
    const last = page.data.at(-1);
    if (!page.has_more || !last) return;
    startingAfter = last.id;
  }
}

const enc = encodeURIComponent;

type EventsParams = { type?: Event["type"]; limit?: number; starting_after?: string };

function payments(http: HttpOptions) {
  const listPage = (params: ListPaymentsParams = {}, opts?: RequestOptions) =>
    request<List<Payment>>(http, "GET", `/payments${query({ ...params })}`, undefined, opts);
  return {
    /** `POST /payments` */
    create: (params: CreatePaymentParams, opts?: RequestOptions) =>
      request<Payment>(http, "POST", "/payments", params, opts),
    /** `GET /payments/:id`: confirm an outcome server-side; never trust the redirect alone. */
    retrieve: (id: string, opts?: RequestOptions) =>
      request<Payment>(http, "GET", `/payments/${enc(id)}`, undefined, opts),
    /** `GET /payments`: one page. */
    listPage,
    /** Every payment matching the filter, newest first, page by page: `for await (const p of …)`. */
    list: (params: Omit<ListPaymentsParams, "starting_after"> = {}) =>
      paginate<Payment>((startingAfter) =>
        listPage({ ...params, ...(startingAfter ? { starting_after: startingAfter } : {}) }),
      ),
  };
}

function webhooks(http: HttpOptions) {
  return {
    /** `POST /webhooks`: the response carries the signing secret, shown only this once. */
    create: (params: CreateWebhookParams, opts?: RequestOptions) =>
      request<CreatedWebhookEndpoint>(http, "POST", "/webhooks", params, opts),
    list: (opts?: RequestOptions) =>
      request<List<WebhookEndpoint>>(http, "GET", "/webhooks", undefined, opts),
    delete: (id: string, opts?: RequestOptions) =>
      request<unknown>(http, "DELETE", `/webhooks/${enc(id)}`, undefined, opts),
    deliveries: (
      id: string,
      params: { limit?: number; starting_after?: string } = {},
      opts?: RequestOptions,
    ) =>
      request<List<WebhookDelivery>>(
        http,
        "GET",
        `/webhooks/${enc(id)}/deliveries${query(params)}`,
        undefined,
        opts,
      ),
    redeliver: (id: string, eventId: string, opts?: RequestOptions) =>
      request<WebhookDelivery>(http, "POST", `/webhooks/${enc(id)}/redeliver`, { event_id: eventId }, opts),
    /** `POST /webhooks/:id/test`: a signed `webhook.test` event to that endpoint, now. */
    test: (id: string, opts?: RequestOptions) =>
      request<unknown>(http, "POST", `/webhooks/${enc(id)}/test`, {}, opts),
  };
}

function events(http: HttpOptions) {
  const listPage = (params: EventsParams = {}, opts?: RequestOptions) =>
    request<List<Event>>(http, "GET", `/events${query(params)}`, undefined, opts);
  return {
    listPage,
    list: (params: Omit<EventsParams, "starting_after"> = {}) =>
      paginate<Event>((startingAfter) =>
        listPage({ ...params, ...(startingAfter ? { starting_after: startingAfter } : {}) }),
      ),
    retrieve: (id: string, opts?: RequestOptions) =>
      request<Event>(http, "GET", `/events/${enc(id)}`, undefined, opts),
  };
}

function paymentLinks(http: HttpOptions) {
  return {
    create: (params: CreatePaymentLinkRequest, opts?: RequestOptions) =>
      request<PaymentLink>(http, "POST", "/payment-links", params, opts),
    list: (opts?: RequestOptions) =>
      request<List<PaymentLink>>(http, "GET", "/payment-links", undefined, opts),
    deactivate: (id: string, opts?: RequestOptions) =>
      request<PaymentLink>(http, "POST", `/payment-links/${enc(id)}/deactivate`, {}, opts),
  };
}

function exports(http: HttpOptions) {
  /** A CSV export of the key's mode over `[from, to)` (ISO 8601), as text. */
  const exportCsv = (name: string) => (range: { from: string; to: string }, opts?: RequestOptions) =>
    requestText(http, `/exports/${name}.csv${query(range)}`, opts);
  return { payments: exportCsv("payments"), ledger: exportCsv("ledger"), payouts: exportCsv("payouts") };
}

/** `publicHttp`: no key is sent. */
function checkout(publicHttp: HttpOptions) {
  return {
    retrieve: (paymentId: string) =>
      request<CheckoutView>(publicHttp, "GET", `/payments/checkout/${enc(paymentId)}`),
    generateWallet: (
      paymentId: string,
      choice: { chain: DepositWallet["chain"]; coin: DepositWallet["coin"] },
    ) =>
      request<DepositWallet>(
        publicHttp,
        "POST",
        `/payments/checkout/${enc(paymentId)}/generate-wallet`,
        choice,
      ),
    /** Test mode only: simulate an outcome of a test payment. */
    simulate: (paymentId: string, outcome: SimulatedOutcome) =>
      request<CheckoutView>(publicHttp, "POST", `/payments/checkout/${enc(paymentId)}/simulate`, {
        outcome,
      }),
  };
}

export function createGateway(options: GatewayOptions) {
  if (!/^gw_(test|live)_/.test(options.apiKey))
    throw new Error("apiKey must start with gw_test_ or gw_live_");
  const http: HttpOptions = {
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    maxRetries: options.maxRetries ?? 3,
    timeoutMs: options.timeoutMs ?? 30_000,
    fetch: options.fetch ?? globalThis.fetch,
    retryBaseMs: options.retryBaseMs ?? 500,
  };
  return {
    mode: options.apiKey.startsWith("gw_live_") ? ("live" as const) : ("test" as const),
    payments: payments(http),
    webhooks: webhooks(http),
    /** The events webhooks carry, kept 30 days, in the key's mode. */
    events: events(http),
    paymentLinks: paymentLinks(http),
    exports: exports(http),
    /** The public checkout calls (no key is sent); useful in tests and custom checkouts. */
    checkout: checkout({ ...http, apiKey: undefined }),
  };
}

export type Gateway = ReturnType<typeof createGateway>;
