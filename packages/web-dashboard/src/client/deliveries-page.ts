// One endpoint's deliveries, newest first, each with its attempts; redelivering an event and
// following the attempt until it is recorded.
import type { WebhookDelivery, WebhookEndpoint } from "@gateway/contracts";
import { api } from "./api.js";
import {
  details,
  errorMessage,
  field,
  flash,
  form,
  h,
  input,
  listTable,
  show,
  statusBadge,
  text,
} from "./dom.js";
import { eventsText, formatDate } from "./labels.js";
import { refreshWhile } from "./mode-pages.js";
import type { List } from "./types.js";

function attemptsTable(d: WebhookDelivery): HTMLElement {
  if (d.attempt_log.length === 0) return h("p", {}, "Not attempted yet.");
  return listTable(
    `Attempts to deliver ${d.event_id}`,
    ["Attempt", "Sent", "Status", "Latency", "Response"],
    d.attempt_log.map((a) => [
      ["Attempt", String(a.attempt)],
      ["Sent", formatDate(a.started_at)],
      ["Status", a.status_code === null ? "no answer" : String(a.status_code)],
      ["Latency", a.latency_ms === null ? "—" : `${a.latency_ms} ms`],
      [
        "Response",
        a.error
          ? h("span", { class: "warning" }, a.error)
          : h("code", { class: "excerpt" }, a.response_excerpt || "(empty)"),
      ],
    ]),
  );
}

/** A delivery, its attempts, and a button that sends its event again. */
function deliveryCard(d: WebhookDelivery, redeliver: (eventId: string) => Promise<void>): HTMLElement {
  const again = h("button", { type: "button" }, "Redeliver");
  again.setAttribute("aria-label", `Redeliver ${d.event_type} ${d.event_id}`);
  again.addEventListener("click", async () => {
    again.disabled = true;
    try {
      await redeliver(d.event_id);
    } catch (err) {
      flash(errorMessage(err), "error");
      again.disabled = false;
    }
  });
  const titleId = `delivery-${d.id}`;
  return h(
    "section",
    {
      class: "panel delivery",
      "aria-labelledby": titleId,
      dataset: { deliveryId: d.id, eventId: d.event_id },
    },
    h("h2", { id: titleId }, h("span", { class: "event-type" }, d.event_type), " ", statusBadge(d.status)),
    details([
      ["Event", h("code", {}, d.event_id)],
      ["Created", formatDate(d.created_at)],
      ["Attempts", String(d.attempts)],
      ...(d.next_attempt_at ? [["Next attempt", formatDate(d.next_attempt_at)] as [string, string]] : []),
    ]),
    attemptsTable(d),
    h("div", { class: "actions" }, again),
  );
}

export async function webhookDeliveriesPage(id: string): Promise<void> {
  const { data: endpoints } = await api<List<WebhookEndpoint>>("GET", "/dashboard/api/webhooks");
  const endpoint = endpoints.find((w) => w.id === id);
  if (!endpoint) {
    show("Endpoint not found", h("p", { class: "panel" }, "This endpoint does not exist or was deleted."));
    return;
  }
  const path = `/dashboard/api/webhooks/${encodeURIComponent(id)}`;
  const list = h("div", { class: "deliveries" });
  const empty = h("p", { class: "panel", hidden: true }, "No deliveries yet.");
  const more = h("button", { type: "button", hidden: true }, "Load more");
  const refresh = h("button", { type: "button" }, "Refresh");
  let last: string | null = null;
  let shown: WebhookDelivery[] = [];

  async function load(reset: boolean) {
    const query = new URLSearchParams({ limit: "20" });
    if (!reset && last) query.set("starting_after", last);
    const page = await api<List<WebhookDelivery>>("GET", `${path}/deliveries?${query}`);
    shown = reset ? page.data : [...shown, ...page.data];
    list.replaceChildren(...shown.map((d) => deliveryCard(d, redeliver)));
    last = shown.at(-1)?.id ?? null;
    more.hidden = !page.has_more;
    empty.hidden = shown.length > 0;
  }

  async function redeliver(eventId: string) {
    await api("POST", `${path}/redeliver`, { event_id: eventId });
    flash(`Event ${eventId} is being sent again.`, "success");
    await load(true);
    // The attempt runs in the notifier: follow it until it is recorded.
    refreshWhile(
      list,
      () => shown.some((d) => d.event_id === eventId && d.status === "pending"),
      () => load(true),
    );
  }

  const resend = form(
    { "aria-label": "Send an event to this endpoint" },
    [
      field(
        "Event ID",
        input({ name: "event_id", spellcheck: "false", placeholder: "evt_…" }),
        "Any event of this mode, also one this endpoint never received.",
      ),
    ],
    "Send event",
    async (data) => redeliver(text(data, "event_id")),
  );
  refresh.addEventListener("click", () => load(true).catch((err) => flash(errorMessage(err), "error")));
  more.addEventListener("click", () => load(false).catch((err) => flash(errorMessage(err), "error")));
  show(
    "Webhook deliveries",
    h("p", {}, h("a", { href: `#/webhooks?mode=${endpoint.is_test ? "test" : "live"}` }, "← All endpoints")),
    details([
      ["URL", h("code", {}, endpoint.url)],
      ["Mode", endpoint.is_test ? "Test" : "Live"],
      ["Events", eventsText(endpoint)],
    ]),
    h("div", { class: "actions" }, refresh),
    empty,
    list,
    more,
    h("h2", {}, "Send an event again"),
    resend,
  );
  await load(true);
}
