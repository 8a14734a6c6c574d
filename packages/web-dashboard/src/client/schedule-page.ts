// The payout schedule: once a day, the whole available stablecoin balance of each chain goes to
// that chain's payout wallet.

import type { Mode } from "@gateway/contracts";
import { ApiError, api } from "./api.js";
import { details, FieldError, field, flash, form, h, input, show, text } from "./dom.js";
import { formatDate, isPlainDecimal, utcHour } from "./labels.js";
import { modeFilter } from "./mode-pages.js";
import { modeFromHash } from "./navigation.js";
import { can } from "./permissions.js";
import type { List, PayoutSchedule, PayoutWallet } from "./types.js";

function scheduleDetails(mode: Mode, schedule: PayoutSchedule | null): HTMLElement {
  return schedule
    ? details([
        ["Status", schedule.enabled ? "On" : "Paused"],
        ["Time", `${utcHour(schedule.hour)} every day`],
        ["Minimum", `${schedule.minimum_amount} USDC/USDT`],
        ["Next run", schedule.next_run_at ? formatDate(schedule.next_run_at) : "—"],
        ["Last run", schedule.last_run_at ? formatDate(schedule.last_run_at) : "never"],
      ])
    : h("p", { class: "panel" }, `No ${mode} schedule yet: nothing is paid out automatically.`);
}

/** The schedule's hour, switch and minimum; saving it draws the page again. */
function scheduleForm(mode: Mode, schedule: PayoutSchedule | null): HTMLFormElement {
  const hour = h(
    "select",
    { name: "hour" },
    Array.from({ length: 24 }, (_, i) =>
      h("option", { value: String(i), selected: (schedule?.hour ?? 0) === i }, utcHour(i)),
    ),
  );
  const enabled = h("input", {
    type: "checkbox",
    name: "enabled",
    checked: schedule ? schedule.enabled : true,
  });
  return form(
    { "aria-label": "Payout schedule" },
    [
      field("Hour (UTC)", hour),
      h(
        "div",
        { class: "field" },
        h("label", { class: "check" }, enabled, "Pay out automatically every day"),
      ),
      field(
        "Minimum amount",
        input({
          name: "minimum_amount",
          inputmode: "decimal",
          value: schedule?.minimum_amount ?? "0.00",
        }),
        "A coin's balance below this waits for the next day.",
      ),
    ],
    "Save schedule",
    async (data) => {
      const minimum = text(data, "minimum_amount") || "0";
      if (!isPlainDecimal(minimum))
        throw new FieldError("Enter the minimum as a number, such as 10.", "minimum_amount");
      const saved = await api<PayoutSchedule>("PUT", "/payouts/schedule", {
        hour: Number(data.get("hour")),
        enabled: enabled.checked,
        // A JSON number, as the API takes it (docs/payouts.md); see payout-form.ts.
        minimum_amount: Number(minimum),
        mode,
      });
      flash(
        saved.enabled
          ? `Schedule saved: every day at ${utcHour(saved.hour)}.`
          : "Schedule saved: automatic payouts are paused.",
        "success",
      );
      await schedulePage();
    },
  );
}

export async function schedulePage(): Promise<void> {
  const mode = modeFromHash();
  let schedule: PayoutSchedule | null = null;
  try {
    schedule = await api<PayoutSchedule>("GET", `/payouts/schedule?mode=${mode}`);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
  }
  const { data: wallets } = await api<List<PayoutWallet>>("GET", "/payout-wallets");
  show(
    "Payout schedule",
    h(
      "p",
      {},
      "Once a day, at the hour you choose, the whole available USDC and USDT balance of each chain is paid to that chain's payout wallet. This payout is free: we pay its network fee. No code is asked, because each wallet was linked with one.",
    ),
    wallets.length === 0
      ? h(
          "p",
          { class: "warning" },
          "No payout wallet is linked yet, so a scheduled run pays nothing. ",
          h("a", { href: "#/wallets" }, "Link a wallet"),
        )
      : [],
    modeFilter("schedule", mode, "Choose the mode"),
    scheduleDetails(mode, schedule),
    can("PUT /payouts/schedule") ? scheduleForm(mode, schedule) : [],
  );
}
