// Webhooks: the mode's endpoints, registering one (its secret shown once) and deleting one.

import { EVENT_TYPES, type EventType, type Mode, type WebhookEndpoint } from "@gateway/contracts";
import { api } from "./api.js";
import { webhookDeliveriesPage } from "./deliveries-page.js";
import { dangerButton, FieldError, field, form, h, input, listTable, revealOnce, show, text } from "./dom.js";
import { eventsText, formatDate, modeName } from "./labels.js";
import { modeField, modeFilter } from "./mode-pages.js";
import { modeFromHash } from "./navigation.js";
import { can } from "./permissions.js";
import { testWebhookButton } from "./test-webhook-button.js";
import type { CreatedWebhookEndpoint, List } from "./types.js";

/** The endpoint's signing secret, shown once with a copy button until "I have saved it". */
function revealSecret(section: HTMLElement, secret: string): void {
  revealOnce(section, {
    titleId: "webhook_secret-title",
    title: "Your endpoint's signing secret",
    urge: "Copy it now. ",
    why: "It is shown only this once; to get a new one, delete the endpoint and register it again.",
    secrets: [["Signing secret", secret, "webhook_secret"]],
    saved: "I have saved it",
  });
}

export async function webhooksPage(id?: string): Promise<void> {
  if (id) return webhookDeliveriesPage(id);
  const mode = modeFromHash();
  const reveal = h("section", { class: "reveal", hidden: true });
  const list = h("div");
  const eventBoxes = EVENT_TYPES.map((type) =>
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "events", value: type }), type),
  );
  const allEvents = h("input", { type: "checkbox", name: "all_events", checked: true });
  const syncEvents = () => {
    for (const box of eventBoxes) box.querySelector("input")!.disabled = allEvents.checked;
  };
  allEvents.addEventListener("change", syncEvents);
  syncEvents();
  const register = form(
    { "aria-label": "Register a webhook endpoint" },
    [
      field(
        "Endpoint URL",
        input({ type: "url", name: "url", autocomplete: "url", spellcheck: "false", required: true }),
        "https:// (http:// is allowed for test endpoints). Private and loopback addresses are refused.",
      ),
      modeField(mode),
      h(
        "fieldset",
        { class: "checks", name: "events" },
        h("legend", {}, "Events"),
        h("label", { class: "check" }, allEvents, "All events, including ones added later"),
        eventBoxes,
      ),
      field("Description", input({ name: "description", maxlength: 500 }), "Optional, for you only."),
    ],
    "Register endpoint",
    async (data) => {
      // The boxes carry the contracts' event types only.
      const events = allEvents.checked ? ["*"] : (data.getAll("events").map(String) as EventType[]);
      if (events.length === 0) throw new FieldError("Pick at least one event, or All events.", "all_events");
      const description = text(data, "description");
      const isTest = data.get("is_test") === "true";
      const created = await api<CreatedWebhookEndpoint>("POST", "/dashboard/api/webhooks", {
        url: text(data, "url"),
        is_test: isTest,
        events,
        ...(description ? { description } : {}),
      });
      register.reset();
      syncEvents();
      revealSecret(reveal, created.secret);
      if ((isTest ? "test" : "live") === mode) await drawWebhooks(list, mode);
    },
  );
  show(
    "Webhooks",
    h(
      "p",
      {},
      "We POST every event of your payments and payouts to these URLs, signed with the endpoint's secret. Test events go to test endpoints only.",
    ),
    modeFilter("webhooks", mode, "Choose the mode"),
    list,
    reveal,
    can("POST /dashboard/api/webhooks") ? [h("h2", {}, "Register an endpoint"), register] : [],
  );
  await drawWebhooks(list, mode);
}

function deleteButton(w: WebhookEndpoint, redraw: () => Promise<void>): HTMLButtonElement {
  return dangerButton({
    label: "Delete",
    ariaLabel: `Delete endpoint ${w.url}`,
    question: `Delete the endpoint ${w.url}? Its pending deliveries are canceled.`,
    act: () => api("DELETE", `/dashboard/api/webhooks/${encodeURIComponent(w.id)}`),
    done: "Endpoint deleted.",
    redraw,
  });
}

async function drawWebhooks(container: HTMLElement, mode: Mode): Promise<void> {
  const { data } = await api<List<WebhookEndpoint>>("GET", `/dashboard/api/webhooks?mode=${mode}`);
  if (data.length === 0) {
    container.replaceChildren(h("p", { class: "panel" }, `No ${mode} endpoints yet.`));
    return;
  }
  const redraw = () => drawWebhooks(container, mode);
  container.replaceChildren(
    listTable(
      `${modeName(mode)} webhook endpoints, newest first`,
      ["URL", "Events", "Description", "Created", ""],
      data.map((w) => [
        ["URL", h("code", {}, w.url)],
        ["Events", eventsText(w)],
        ["Description", w.description ?? "—"],
        ["Created", formatDate(w.created_at)],
        [
          null,
          h(
            "div",
            { class: "row-actions" },
            h(
              "a",
              { href: `#/webhooks/${encodeURIComponent(w.id)}`, "aria-label": `Deliveries to ${w.url}` },
              "Deliveries",
            ),
            can("POST /dashboard/api/webhooks/{id}/test") ? testWebhookButton(w) : "",
            can("DELETE /dashboard/api/webhooks/{id}") ? deleteButton(w, redraw) : "",
          ),
        ],
      ]),
      (i) => ({ endpointId: data[i]!.id }),
    ),
  );
}
