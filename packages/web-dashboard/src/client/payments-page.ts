// Payments: the list (by mode and status, 25 a page) and one payment with its timeline.
import { PAYMENT_STATUSES, type Payment, type PaymentStatus } from "@gateway/contracts";
import { api } from "./api.js";
import { type Children, details, errorMessage, field, flash, h, show, statusBadge } from "./dom.js";
import { chainName, formatDate } from "./labels.js";
import { go, hashQuery } from "./navigation.js";
import { paymentTimelineSections } from "./payment-timeline.js";
import type { List, PaymentDetail } from "./types.js";

function isPaymentStatus(value: string | null): value is PaymentStatus {
  return (PAYMENT_STATUSES as readonly (string | null)[]).includes(value);
}

/** Mode and status selects; a change opens the list they choose. */
function paymentFilters(mode: "test" | "live", status: PaymentStatus | ""): HTMLFormElement {
  const modeSelect = h(
    "select",
    { name: "mode" },
    h("option", { value: "test", selected: mode === "test" }, "Test"),
    h("option", { value: "live", selected: mode === "live" }, "Live"),
  );
  const statusSelect = h(
    "select",
    { name: "status" },
    h("option", { value: "" }, "All"),
    PAYMENT_STATUSES.map((s) => h("option", { value: s, selected: s === status }, s)),
  );
  const filters = h(
    "form",
    { class: "filters", "aria-label": "Filter payments" },
    field("Mode", modeSelect),
    field("Status", statusSelect),
  );
  const applyFilters = () => {
    const query = new URLSearchParams({ mode: modeSelect.value });
    if (statusSelect.value) query.set("status", statusSelect.value);
    go(`#/payments?${query}`);
  };
  modeSelect.addEventListener("change", applyFilters);
  statusSelect.addEventListener("change", applyFilters);
  filters.addEventListener("submit", (e) => e.preventDefault());
  return filters;
}

function paymentRow(p: Payment): HTMLTableRowElement {
  return h(
    "tr",
    { dataset: { paymentId: p.id } },
    h(
      "td",
      { "data-label": "Amount" },
      h("a", { href: `#/payments/${encodeURIComponent(p.id)}` }, `${p.amount} ${p.currency}`),
    ),
    h("td", { "data-label": "Status" }, statusBadge(p.status)),
    h("td", { "data-label": "Description" }, p.description ?? "—"),
    h("td", { "data-label": "Created" }, h("time", { datetime: p.created_at }, formatDate(p.created_at))),
  );
}

export async function paymentsPage(id?: string): Promise<void> {
  if (id) return paymentDetail(id);
  const params = hashQuery();
  const mode = params.get("mode") === "live" ? "live" : "test";
  const requested = params.get("status");
  const status = isPaymentStatus(requested) ? requested : "";

  const body = h("tbody");
  const table = h(
    "table",
    { class: "list" },
    h("caption", { class: "visually-hidden" }, `${mode === "test" ? "Test" : "Live"} payments, newest first`),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Amount"),
        h("th", { scope: "col" }, "Status"),
        h("th", { scope: "col" }, "Description"),
        h("th", { scope: "col" }, "Created"),
      ),
    ),
    body,
  );
  const empty = h("p", { class: "panel", hidden: true }, "No payments match these filters yet.");
  const more = h("button", { type: "button", hidden: true }, "Load more");
  show("Payments", paymentFilters(mode, status), empty, h("div", { class: "table-wrap" }, table), more);

  let last: string | null = null;
  async function load() {
    const query = new URLSearchParams({ mode, limit: "25" });
    if (status) query.set("status", status);
    if (last) query.set("starting_after", last);
    const page = await api<List<Payment>>("GET", `/dashboard/api/payments?${query}`);
    body.append(...page.data.map(paymentRow));
    last = page.data.at(-1)?.id ?? last;
    more.hidden = !page.has_more;
    empty.hidden = body.children.length > 0;
    table.hidden = body.children.length === 0;
  }
  more.addEventListener("click", () => load().catch((err) => flash(errorMessage(err), "error")));
  await load();
}

function refundRows(payment: Payment): [string, Node | string][] {
  return payment.refunds.map((r) => [
    `Refund (${r.reason})`,
    h(
      "span",
      {},
      `${r.amount} ${r.coin}`,
      r.to ? [" to ", h("code", {}, r.to)] : null,
      ` · ${r.simulated ? "simulated" : r.status}`,
      r.transaction_hash ? h("code", { class: "event-id" }, ` ${r.transaction_hash}`) : null,
    ),
  ]);
}

async function paymentDetail(id: string): Promise<void> {
  const { payment, events } = await api<PaymentDetail>(
    "GET",
    `/dashboard/api/payments/${encodeURIComponent(id)}`,
  );
  const paidWith = payment.coin && payment.chain ? `${payment.coin} on ${chainName(payment.chain)}` : "—";
  const rows: [string, Node | string][] = [
    ["Amount", `${payment.amount} ${payment.currency}`],
    ["Status", statusBadge(payment.status)],
    ["Mode", payment.is_test ? "Test" : "Live"],
    ["Fee", `${payment.fee} ${payment.currency}`],
    ["Description", payment.description ?? "—"],
    ["Paid with", paidWith],
    ["Deposit address", payment.deposit_address ? h("code", {}, payment.deposit_address) : "—"],
    ["Received", payment.coin ? `${payment.amount_received} ${payment.coin}` : "—"],
    ...(payment.overpaid_amount
      ? [["Overpaid", `${payment.overpaid_amount} ${payment.coin}`] as [string, string]]
      : []),
    ...refundRows(payment),
    ["Created", formatDate(payment.created_at)],
    ["Expires", formatDate(payment.expires_at)],
    ["Payment ID", h("code", {}, payment.id)],
    ["Checkout", h("a", { href: payment.checkout_url, rel: "noreferrer" }, "Open the checkout page")],
  ];
  // The creation is not an event (nothing is sent for it) but it starts every timeline.
  const entries = [{ id: null, type: "payment.created", created_at: payment.created_at }, ...events];
  const timeline: Children = h(
    "ol",
    { class: "timeline", "aria-label": "Payment events, oldest first" },
    entries.map((e) =>
      h(
        "li",
        { dataset: e.id ? { eventId: e.id } : {} },
        h("span", { class: "event-type" }, e.type),
        h("time", { datetime: e.created_at }, formatDate(e.created_at)),
        e.id ? h("code", { class: "event-id" }, e.id) : null,
      ),
    ),
  );
  show(
    `Payment ${payment.amount} ${payment.currency}`,
    h("p", {}, h("a", { href: `#/payments?mode=${payment.is_test ? "test" : "live"}` }, "← All payments")),
    details(rows),
    h("h2", {}, "Timeline"),
    timeline,
    ...(await paymentTimelineSections(payment)),
  );
}
