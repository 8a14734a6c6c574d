// What the mode-scoped pages (webhooks, payouts, schedule) share: the mode filter and a refresh
// that follows work still under way.
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
