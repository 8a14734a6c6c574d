// The hosted checkout's behaviour: reads the public view of one payment, lets the customer pick
// a network and coin, shows the deposit wallet, and follows the status until it settles. Every
// value lands in the DOM as text; the server renders the page and escapes what it writes.
import { wireActions } from "./actions.js";
import { renderCountdown } from "./countdown.js";
import { followChanges, poll, schedulePoll } from "./follow.js";
import { isFinal } from "./labels.js";
import { wireReceipt } from "./receipt.js";
import { state } from "./state.js";

wireActions();
wireReceipt();

document.addEventListener("visibilitychange", () => {
  if (!document.hidden && (!state.view || !isFinal(state.view.status))) schedulePoll(0);
});

setInterval(renderCountdown, 1000);
renderCountdown();
void poll();
followChanges();
