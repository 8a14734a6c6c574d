// The rest of a payment's timeline on its page: its on-chain transactions (with explorer links)
// and the webhook deliveries of its events, each with its attempts.
import type { Payment, WebhookDelivery } from "@gateway/contracts";
import { api } from "./api.js";
import { h, statusBadge } from "./dom.js";
import { explorerUrl } from "./explorers.js";
import { chainName, formatDate } from "./labels.js";
import type { List, PaymentTransaction } from "./types.js";

const KIND_WORDS: Record<PaymentTransaction["kind"], string> = {
  deposit: "Deposit",
  sweep: "Swept to the vault",
  refund: "Refund",
};

function transactionList(payment: Payment, txs: PaymentTransaction[]): HTMLElement {
  if (txs.length === 0)
    return h(
      "p",
      { class: "panel" },
      payment.is_test ? "None: test payments move nothing on chain." : "None yet.",
    );
  return h(
    "ol",
    { class: "timeline", "aria-label": "On-chain transactions" },
    txs.map((t) =>
      h(
        "li",
        { dataset: { txid: t.txid } },
        h("span", { class: "event-type" }, KIND_WORDS[t.kind]),
        t.amount ? `${t.amount} ${t.coin} on ${chainName(t.chain)}` : `on ${chainName(t.chain)}`,
        " ",
        h(
          "a",
          { href: explorerUrl(t.chain, t.txid), rel: "noreferrer noopener", target: "_blank" },
          h("code", { class: "event-id" }, t.txid),
        ),
      ),
    ),
  );
}

function deliveryList(deliveries: WebhookDelivery[]): HTMLElement {
  if (deliveries.length === 0) return h("p", { class: "panel" }, "No webhook endpoint got these events.");
  return h(
    "ol",
    { class: "timeline", "aria-label": "Webhook deliveries" },
    deliveries.map((d) =>
      h(
        "li",
        { dataset: { deliveryId: d.id } },
        h("span", { class: "event-type" }, d.event_type),
        statusBadge(d.status),
        ` ${d.attempts} attempt${d.attempts === 1 ? "" : "s"} `,
        h("a", { href: `#/webhooks/${encodeURIComponent(d.endpoint_id)}` }, "endpoint"),
        h(
          "ul",
          { class: "attempts", "aria-label": `Attempts of ${d.event_type}` },
          d.attempt_log.map((a) =>
            h(
              "li",
              {},
              `#${a.attempt} `,
              h("time", { datetime: a.started_at }, formatDate(a.started_at)),
              ` · ${a.status_code ?? a.error ?? "no answer"}`,
              a.latency_ms === null ? "" : ` · ${a.latency_ms} ms`,
            ),
          ),
        ),
      ),
    ),
  );
}

/** Headings and lists to append after the events of the payment page. */
export async function paymentTimelineSections(payment: Payment): Promise<HTMLElement[]> {
  const [txs, deliveries] = await Promise.all([
    api<List<PaymentTransaction>>(
      "GET",
      `/dashboard/api/payments/${encodeURIComponent(payment.id)}/transactions`,
    ),
    api<List<WebhookDelivery>>(
      "GET",
      `/dashboard/api/webhook-deliveries?payment_id=${encodeURIComponent(payment.id)}`,
    ),
  ]);
  return [
    h("h2", {}, "On-chain transactions"),
    transactionList(payment, txs.data),
    h("h2", {}, "Webhook deliveries"),
    deliveryList(deliveries.data),
  ];
}
