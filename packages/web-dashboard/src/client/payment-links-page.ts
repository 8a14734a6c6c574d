// Payment links: the mode's links with their counts and QR codes, making one, deactivating one.
import { CURRENCIES, type Mode } from "@gateway/contracts";
import { api } from "./api.js";
import { dangerButton, field, form, h, input, listTable, show, text } from "./dom.js";
import { formatDate, modeName } from "./labels.js";
import { modeField, modeFilter } from "./mode-pages.js";
import { modeFromHash } from "./navigation.js";
import type { List, PaymentLink } from "./types.js";

/** The link to share: its URL, its QR code (served by us, so the page's CSP allows it). */
function linkCard(link: PaymentLink): HTMLElement {
  return h(
    "div",
    { class: "payment-link" },
    h("img", {
      src: new URL(link.qr_code_url).pathname,
      width: 160,
      height: 160,
      alt: `QR code of ${link.url}`,
    }),
    h("p", {}, h("code", {}, link.url)),
  );
}

export async function paymentLinksPage(): Promise<void> {
  const mode = modeFromHash();
  const created = h("section", { class: "panel", "aria-label": "New payment link", hidden: true });
  const list = h("div");
  const make = form(
    { "aria-label": "Create a payment link" },
    [
      field("Amount", input({ name: "amount", inputmode: "decimal", required: true, autocomplete: "off" })),
      field(
        "Currency",
        h(
          "select",
          { name: "currency" },
          CURRENCIES.map((c) => h("option", { value: c }, c)),
        ),
      ),
      field(
        "Description",
        input({ name: "description", maxlength: 1000 }),
        "Shown to the customer on the checkout.",
      ),
      field(
        "Redirect URL",
        input({ type: "url", name: "redirect_url" }),
        "Optional: where the customer goes once paid.",
      ),
      modeField(mode),
    ],
    "Create link",
    async (data) => {
      const description = text(data, "description");
      const redirect = text(data, "redirect_url");
      const isTest = data.get("is_test") === "true";
      const link = await api<PaymentLink>("POST", "/dashboard/api/payment-links", {
        amount: text(data, "amount"),
        currency: text(data, "currency"),
        is_test: isTest,
        ...(description ? { description } : {}),
        ...(redirect ? { redirect_url: redirect } : {}),
      });
      make.reset();
      created.hidden = false;
      created.replaceChildren(h("h2", {}, "Your new link"), linkCard(link));
      if ((isTest ? "test" : "live") === mode) await drawLinks(list, mode);
    },
  );
  show(
    "Payment links",
    h(
      "p",
      {},
      "A payment link is a page for a fixed amount you can share anywhere. Each visit makes a new payment; you are notified as for any payment.",
    ),
    modeFilter("payment-links", mode, "Choose the mode"),
    list,
    created,
    h("h2", {}, "Create a payment link"),
    make,
  );
  await drawLinks(list, mode);
}

async function drawLinks(container: HTMLElement, mode: Mode): Promise<void> {
  const { data } = await api<List<PaymentLink>>("GET", `/dashboard/api/payment-links?mode=${mode}&limit=100`);
  if (data.length === 0) {
    container.replaceChildren(h("p", { class: "panel" }, `No ${mode} payment links yet.`));
    return;
  }
  const redraw = () => drawLinks(container, mode);
  container.replaceChildren(
    listTable(
      `${modeName(mode)} payment links, newest first`,
      ["Link", "Amount", "Description", "Payments", "Status", "Created", ""],
      data.map((link) => [
        ["Link", linkCard(link)],
        ["Amount", `${link.amount} ${link.currency}`],
        ["Description", link.description ?? "—"],
        ["Payments", `${link.payments_count} (${link.completed_count} completed)`],
        ["Status", link.active ? "Active" : "Inactive"],
        ["Created", formatDate(link.created_at)],
        [
          null,
          link.active
            ? dangerButton({
                label: "Deactivate",
                ariaLabel: `Deactivate ${link.url}`,
                question: "Deactivate this link? Visitors will be told it is no longer active.",
                act: () =>
                  api("POST", `/dashboard/api/payment-links/${encodeURIComponent(link.id)}/deactivate`),
                done: "Link deactivated.",
                redraw,
              })
            : "",
        ],
      ]),
      (i) => ({ linkId: data[i]!.id }),
    ),
  );
}
