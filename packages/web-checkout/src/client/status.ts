// The status line at the top of the payment card, and which controls may be used right now.
import type { MessageKey } from "../i18n/en.js";
import { ui } from "./elements.js";
import { money, t } from "./i18n.js";
import { remainingMs, state } from "./state.js";
import type { CheckoutView } from "./types.js";

type Tone = "idle" | "waiting" | "progress" | "ok" | "bad";

function statusMessage(view: CheckoutView): [Tone, string] {
  const received = view.amount_received && view.wallet ? money(view.amount_received, view.wallet.coin) : null;
  switch (view.status) {
    case "pending":
      if (state.simulating)
        return ["progress", t("statusSimulating", { outcome: simulatingLabel(state.simulating) })];
      if (remainingMs() <= 0) return ["progress", t("statusTimeUp")];
      return view.wallet ? ["waiting", t("statusWaiting")] : ["idle", t("statusChoose")];
    case "confirming":
      return ["progress", received ? t("statusDetected", { amount: received }) : t("statusDetectedPayment")];
    case "confirmed":
      return ["progress", t("statusConfirmed")];
    case "completed":
      return ["ok", t("statusPaid")];
    case "underpaid":
      return ["bad", received ? t("statusUnderpaidAmount", { amount: received }) : t("statusUnderpaid")];
    case "refunded":
      return ["bad", t("statusRefunded")];
    case "expired":
      return ["bad", t("statusExpired")];
    case "failed":
      return ["bad", t("statusFailed")];
    default: {
      // A status added to the contracts does not compile until it has its words here; a server
      // newer than this page still gets a readable line.
      const unknown: never = view.status;
      return ["idle", t("statusUnknown", { status: String(unknown) })];
    }
  }
}

/** The simulated outcome in the page's words: the test tools' own button labels. */
function simulatingLabel(outcome: string): string {
  const key: MessageKey | undefined = (
    {
      payment: "paymentHeading",
      underpaid: "outcomeUnderpaid",
      overpaid: "outcomeOverpaid",
      expired: "outcomeExpired",
    } as const
  )[outcome as "payment"];
  return key ? t(key) : outcome;
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
