// API keys: generate a keypair (its keys shown once), list them, switch one off or on.

import { api } from "./api.js";
import { errorMessage, flash, h, listTable, revealOnce, show } from "./dom.js";
import { formatDate } from "./labels.js";
import { can } from "./permissions.js";
import type { ApiKeypair, CreatedKeypair, List } from "./types.js";

export async function keysPage(): Promise<void> {
  const reveal = h("section", { class: "reveal", hidden: true, "aria-labelledby": "reveal-title" });
  const list = h("div");
  const generate = h("button", { type: "button", class: "primary" }, "Generate a keypair");
  generate.addEventListener("click", async () => {
    generate.disabled = true;
    try {
      const created = await api<CreatedKeypair>("POST", "/api-keys", {});
      showReveal(reveal, created);
      await drawKeys(list);
    } catch (err) {
      flash(errorMessage(err), "error");
    } finally {
      generate.disabled = false;
    }
  });
  show(
    "API keys",
    h(
      "p",
      {},
      "A keypair holds a test key (gw_test_…, simulated payments) and a live key (gw_live_…). Use them only on your server.",
    ),
    can("POST /api-keys") ? h("div", { class: "actions" }, generate) : [],
    reveal,
    list,
  );
  await drawKeys(list);
}

function showReveal(section: HTMLElement, created: CreatedKeypair): void {
  revealOnce(section, {
    titleId: "reveal-title",
    title: "Your new keys",
    urge: "Copy them now. ",
    why: "This is the only time they are shown; we store only a fingerprint.",
    secrets: [
      ["Test key", created.test_key, "test_key"],
      ["Live key", created.live_key, "live_key"],
    ],
    saved: "I have saved them",
  });
}

function toggleButton(k: ApiKeypair, redraw: () => Promise<void>): HTMLButtonElement {
  const verb = k.active ? "Deactivate" : "Activate";
  const action = h("button", { type: "button", class: k.active ? "danger" : "" }, verb);
  action.setAttribute("aria-label", `${verb} keypair ${k.test_key_prefix}`);
  action.addEventListener("click", async () => {
    action.disabled = true;
    try {
      await api("POST", `/api-keys/${encodeURIComponent(k.id)}/${k.active ? "deactivate" : "activate"}`, {});
      flash(k.active ? "Keypair deactivated: both keys stop working now." : "Keypair activated.", "success");
      await redraw();
    } catch (err) {
      flash(errorMessage(err), "error");
      action.disabled = false;
    }
  });
  return action;
}

async function drawKeys(container: HTMLElement): Promise<void> {
  const { data } = await api<List<ApiKeypair>>("GET", "/api-keys");
  if (data.length === 0) {
    container.replaceChildren(h("p", { class: "panel" }, "No keys yet."));
    return;
  }
  const redraw = () => drawKeys(container);
  container.replaceChildren(
    listTable(
      "Your API keypairs",
      ["Test key", "Live key", "Status", "Created", ""],
      data.map((k) => [
        ["Test key", h("code", {}, k.test_key_prefix)],
        ["Live key", h("code", {}, k.live_key_prefix)],
        [
          "Status",
          h(
            "span",
            { class: `badge ${k.active ? "badge-completed" : "badge-expired"}` },
            k.active ? "active" : "inactive",
          ),
        ],
        ["Created", formatDate(k.created_at)],
        [null, can("POST /api-keys/{id}/deactivate") ? toggleButton(k, redraw) : ""],
      ]),
      (i) => ({ keypairId: data[i]!.id }),
    ),
  );
}
