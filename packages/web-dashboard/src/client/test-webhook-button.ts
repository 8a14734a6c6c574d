// "Send test event" on a webhook endpoint: a signed `webhook.test` event, delivered now and
// logged with the endpoint's deliveries.
import type { WebhookDelivery, WebhookEndpoint } from "@gateway/contracts";
import { api } from "./api.js";
import { errorMessage, flash, h } from "./dom.js";

export function testWebhookButton(w: WebhookEndpoint): HTMLButtonElement {
  const button = h("button", { type: "button" }, "Send test event");
  button.setAttribute("aria-label", `Send test event to ${w.url}`);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const delivery = await api<WebhookDelivery>(
        "POST",
        `/dashboard/api/webhooks/${encodeURIComponent(w.id)}/test`,
        {},
      );
      flash(`Test event ${delivery.event_id} sent; see its attempt under Deliveries.`, "success");
    } catch (err) {
      flash(errorMessage(err), "error");
    } finally {
      button.disabled = false;
    }
  });
  return button;
}
