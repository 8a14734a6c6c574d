// The status line at the top of the payment card, and which controls may be used right now.
import { ui } from "./elements.js";
import { remainingMs, state } from "./state.js";
import type { CheckoutView } from "./types.js";

type Tone = "idle" | "waiting" | "progress" | "ok" | "bad";

function statusMessage(view: CheckoutView): [Tone, string] {
  const received = view.amount_received && view.wallet ? `${view.amount_received} ${view.wallet.coin}` : null;
  switch (view.status) {
    case "pending":
      if (state.simulating) return ["progress", `Simulating: ${state.simulating}…`];
      if (remainingMs() <= 0) return ["progress", "Time is up. Closing this payment…"];
      return view.wallet
        ? ["waiting", "Waiting for your payment…"]
        : ["idle", "Choose a network and coin to get your deposit address."];
    case "confirming":
      return ["progress", `${received ?? "Payment"} detected. Waiting for network confirmation…`];
    case "confirmed":
      return ["progress", "Payment confirmed. Finishing up…"];
    case "completed":
      return ["ok", "Paid. Thank you!"];
    case "underpaid":
      return [
        "bad",
        `Less than the amount due arrived${received ? ` (${received})` : ""}. It is being returned to you.`,
      ];
    case "refunded":
      return ["bad", "This payment was not completed. The funds received were returned."];
    case "expired":
      return ["bad", "This payment has expired."];
    case "failed":
      return ["bad", "This payment could not be completed."];
    default: {
      // A status added to the contracts does not compile until it has its words here; a server
      // newer than this page still gets a readable line.
      const unknown: never = view.status;
      return ["idle", `Status: ${String(unknown)}`];
    }
  }
}

export function renderStatus(view: CheckoutView): void {
  const [tone, text] = statusMessage(view);
  ui.statusBox.dataset.state = tone;
  // Only a change is announced; rewriting the same words would repeat them to screen readers.
  if (ui.status.textContent !== text) ui.status.textContent = text;
}

export function setBusy(busy: boolean): void {
  state.busy = busy;
  // Nothing more to do while a simulation is on its way: it settles the payment either way.
  const closed = state.view?.status !== "pending" || remainingMs() <= 0 || state.simulating !== null;
  ui.generate.disabled = busy || closed || !state.chain || !state.coin;
  for (const button of ui.testTools?.querySelectorAll("button") ?? []) button.disabled = busy || closed;
  ui.change.disabled = busy;
  ui.refreshQuote.disabled = busy || closed;
}
