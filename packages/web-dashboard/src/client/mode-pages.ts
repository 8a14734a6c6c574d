// What the mode-scoped pages (webhooks, payment links, payouts, schedule) share: the mode filter,
// the mode field of a create form, and a refresh that follows work still under way.
import type { Mode } from "@gateway/contracts";
import { field, h } from "./dom.js";
import { go } from "./navigation.js";

/** A Mode select that reloads the page at `#/<path>?mode=`. */
export function modeFilter(path: string, mode: Mode, label: string): HTMLFormElement {
  const select = h(
    "select",
    { name: "mode" },
    h("option", { value: "test", selected: mode === "test" }, "Test"),
    h("option", { value: "live", selected: mode === "live" }, "Live"),
  );
  select.addEventListener("change", () => go(`#/${path}?mode=${select.value}`));
  const el = h("form", { class: "filters", "aria-label": label }, field("Mode", select));
  el.addEventListener("submit", (e) => e.preventDefault());
  return el;
}

/** A create form's `is_test` select, on the page's mode to start with. */
export function modeField(mode: Mode): HTMLDivElement {
  return field(
    "Mode",
    h(
      "select",
      { name: "is_test" },
      h("option", { value: "true", selected: mode === "test" }, "Test (simulated payments)"),
      h("option", { value: "false", selected: mode === "live" }, "Live"),
    ),
  );
}

/** Re-runs `load` every `everyMs` while `isBusy()` and `anchor` is still on the page. */
export function refreshWhile(
  anchor: Node,
  isBusy: () => boolean,
  load: () => Promise<void>,
  everyMs = 1000,
): void {
  const tick = async () => {
    if (!document.body.contains(anchor) || !isBusy()) return;
    try {
      await load();
    } catch {
      return;
    }
    setTimeout(tick, everyMs);
  };
  setTimeout(tick, everyMs);
}
