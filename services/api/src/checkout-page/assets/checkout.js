// The hosted checkout's behaviour: reads the public view of one payment, lets the customer pick
// a network and coin, shows the deposit wallet, and follows the status until it settles.
// Plain script, no build step, no third-party code; every value lands in the DOM as text.

const POLL_MS = 2000;
// After a simulation the outcome arrives within a second or two: look more often for a while.
const FAST_POLL_MS = 1000;
const FAST_POLL_WINDOW_MS = 30_000;
const MAX_BACKOFF_MS = 15_000;
// While the change stream is open the page reads the view when told of a change; this slow poll
// is only a safety net for a stream that stalls without saying so.
const STREAM_SAFETY_POLL_MS = 30_000;
const REDIRECT_DELAY_MS = 3000;

/** Statuses after which nothing changes any more. */
const FINAL = new Set(["completed", "refunded", "expired", "failed"]);
const CHAIN_NAMES = { solana: "Solana", sui: "Sui" };
const REFUND_REASONS = {
  underpayment: "Partial payment returned",
  overpayment: "Extra amount returned",
  late: "Late payment returned",
};

const root = document.querySelector("main[data-payment-id]");
const paymentId = root.dataset.paymentId;
const apiBase = `/payments/checkout/${encodeURIComponent(paymentId)}`;
const el = (name) => root.querySelector(`[data-${name}]`);

const ui = {
  status: el("status"),
  statusBox: el("status-box"),
  alert: el("alert"),
  announce: el("announce"),
  countdownRow: el("countdown-row"),
  countdown: el("countdown"),
  steps: {
    choose: root.querySelector('[data-step="choose"]'),
    wallet: root.querySelector('[data-step="wallet"]'),
    result: root.querySelector('[data-step="result"]'),
  },
  chainList: el("chain-list"),
  coinList: el("coin-list"),
  choiceAmount: el("choice-amount"),
  choiceRate: el("choice-rate"),
  quoteRow: el("quote-row"),
  quoteRate: el("quote-rate"),
  quoteRunning: el("quote-running"),
  quoteCountdown: el("quote-countdown"),
  quoteEnded: el("quote-ended"),
  refreshQuote: el("refresh-quote"),
  walletDetails: el("wallet-details"),
  generate: el("generate"),
  walletAmount: el("wallet-amount"),
  walletAddress: el("wallet-address"),
  walletNetwork: el("wallet-network"),
  qr: el("qr"),
  qrCaption: el("qr-caption"),
  walletLinkRow: el("wallet-link-row"),
  walletLink: el("wallet-link"),
  warning: el("warning"),
  change: el("change"),
  resultTitle: el("result-title"),
  resultText: el("result-text"),
  refunds: el("refunds"),
  redirectRow: el("redirect-row"),
  redirectLink: el("redirect-link"),
  testTools: el("test-tools"),
};

const state = {
  /** The last view read from the API. */
  view: null,
  step: null,
  /** The customer asked to pick another coin while a wallet is already assigned. */
  choosing: false,
  chain: null,
  coin: null,
  /** Server time minus local time, so the countdown is right on a phone with a wrong clock. */
  clockOffsetMs: 0,
  fastPollUntil: 0,
  pollTimer: 0,
  failures: 0,
  busy: false,
  redirecting: false,
  /** When the customer last changed the payment; a poll sent before then is out of date. */
  changedAt: 0,
  /** The outcome of a simulation that settlement has not applied yet. */
  simulating: null,
  /** The change stream (EventSource), while there is one. */
  stream: null,
  /** The newest payment version a change notice announced. */
  seenVersion: -1,
};

// ---- API ----------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, message, retryAfterMs) {
    super(message);
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

function idempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `chk_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

async function api(method, path, body) {
  const headers = { accept: "application/json" };
  const init = { method, headers, cache: "no-store", credentials: "omit" };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    // A retried click must not act twice.
    headers["idempotency-key"] = idempotencyKey();
    init.body = JSON.stringify(body);
  }
  const sentAt = Date.now();
  const response = await fetch(apiBase + path, init);
  noteServerClock(response.headers.get("date"), sentAt, Date.now());
  const payload = await response.json().catch(() => null);
  if (!response.ok) {
    const retryAfter = Number(response.headers.get("retry-after"));
    const message = payload?.error?.message ?? `The request failed (HTTP ${response.status}).`;
    throw new ApiError(response.status, message, Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined);
  }
  return payload;
}

function noteServerClock(dateHeader, sentAt, receivedAt) {
  const server = Date.parse(dateHeader ?? "");
  if (Number.isNaN(server)) return;
  const offset = server - (sentAt + receivedAt) / 2;
  // The Date header has one-second resolution: smaller differences are noise.
  state.clockOffsetMs = Math.abs(offset) > 1500 ? offset : 0;
}

// ---- Polling ------------------------------------------------------------------------------

function schedulePoll(delayMs) {
  clearTimeout(state.pollTimer);
  state.pollTimer = setTimeout(poll, delayMs);
}

async function poll() {
  if (document.hidden) return; // resumed by visibilitychange
  const sentAt = Date.now();
  try {
    const view = await api("GET", "");
    state.failures = 0;
    hideAlert();
    // A view read before the customer's own change (a new wallet) would undo it on screen.
    if (sentAt >= state.changedAt) render(view);
  } catch (err) {
    state.failures += 1;
    if (err instanceof ApiError && err.status === 404) {
      showAlert("This payment no longer exists.");
      return;
    }
    if (state.failures > 1) showAlert("Connection problem; retrying…");
    const backoff = Math.min(POLL_MS * 2 ** state.failures, MAX_BACKOFF_MS);
    schedulePoll(err instanceof ApiError && err.retryAfterMs ? err.retryAfterMs : backoff);
    return;
  }
  if (!state.view || FINAL.has(state.view.status)) {
    stopFollowing();
    return;
  }
  schedulePoll(nextPollDelay());
}

function nextPollDelay() {
  if (state.stream?.readyState === EventSource.OPEN) return STREAM_SAFETY_POLL_MS;
  return Date.now() < state.fastPollUntil ? FAST_POLL_MS : POLL_MS;
}

// ---- Change stream ------------------------------------------------------------------------
// One request for the whole visit instead of a poll every two seconds: customers behind one
// address (an office, a mobile carrier) share its rate limit. Polling takes over whenever the
// stream is unavailable.

function followChanges() {
  if (typeof EventSource !== "function" || state.stream) return;
  const stream = new EventSource(`${apiBase}/events`);
  state.stream = stream;
  stream.addEventListener("change", (event) => {
    let change;
    try {
      change = JSON.parse(event.data);
    } catch {
      return;
    }
    if (typeof change?.version !== "number" || change.version <= state.seenVersion) return;
    state.seenVersion = change.version;
    schedulePoll(0);
    // The server ends the stream after a final status; closing it here stops EventSource from
    // reconnecting to hear the same thing again.
    if (FINAL.has(change.status)) stopFollowing();
  });
  stream.addEventListener("error", () => {
    // EventSource reconnects by itself after a dropped connection; once it gives up (a refused
    // request such as a 429, or the stream ended for good) polling goes on alone.
    if (stream.readyState === EventSource.CLOSED && state.stream === stream) {
      state.stream = null;
      if (state.view && !FINAL.has(state.view.status)) schedulePoll(nextPollDelay());
    }
  });
}

function stopFollowing() {
  state.stream?.close();
  state.stream = null;
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden && (!state.view || !FINAL.has(state.view.status))) schedulePoll(0);
});

// ---- Rendering ----------------------------------------------------------------------------

function render(view) {
  const previous = state.view;
  state.view = view;
  if (view.status !== "pending") state.simulating = null;
  if (state.simulating && Date.now() > state.fastPollUntil) {
    state.simulating = null;
    showAlert("The simulation has not been applied yet. Try again in a moment.");
  }
  if (!previous) buildChoices(view);
  renderCountdown();
  renderStatus(view);

  const open = view.status === "pending" || view.status === "confirming" || view.status === "confirmed";
  let step = "result";
  if (open) step = view.wallet && !state.choosing ? "wallet" : "choose";
  if (step === "wallet") fillWallet(view.wallet, view.status === "pending" && view.options.length > 1);
  if (step === "result") fillResult(view);
  showStep(step, previous !== null);

  if (ui.testTools) ui.testTools.hidden = !(view.is_test && view.status === "pending");
  setBusy(state.busy);
}

function showStep(step, moveFocus) {
  if (state.step === step) return;
  state.step = step;
  for (const [name, node] of Object.entries(ui.steps)) node.hidden = name !== step;
  if (moveFocus) ui.steps[step].querySelector("[data-focus]")?.focus();
}

function statusMessage(view) {
  const received = view.amount_received && view.wallet ? `${view.amount_received} ${view.wallet.coin}` : null;
  switch (view.status) {
    case "pending":
      if (state.simulating) return ["progress", `Simulating: ${state.simulating}…`];
      if (remainingMs() <= 0) return ["progress", "Time is up. Closing this payment…"];
      return view.wallet
        ? ["waiting", "Waiting for your payment…"]
        : ["idle", "Choose a network and coin to get your deposit address."];
    case "confirming":
      return [
        "progress",
        received
          ? `${received} detected. Waiting for network confirmation…`
          : "Payment detected. Waiting for network confirmation…",
      ];
    case "confirmed":
      return ["progress", "Payment confirmed. Finishing up…"];
    case "completed":
      return ["ok", "Paid. Thank you!"];
    case "underpaid":
      return [
        "bad",
        received
          ? `Less than the amount due arrived (${received}). It is being returned to you.`
          : "Less than the amount due arrived. It is being returned to you.",
      ];
    case "refunded":
      return ["bad", "This payment was not completed. The funds received were returned."];
    case "expired":
      return ["bad", "This payment has expired."];
    case "failed":
      return ["bad", "This payment could not be completed."];
    default:
      return ["idle", `Status: ${view.status}`];
  }
}

function renderStatus(view) {
  const [tone, text] = statusMessage(view);
  ui.statusBox.dataset.state = tone;
  // Only a change is announced; rewriting the same words would repeat them to screen readers.
  if (ui.status.textContent !== text) ui.status.textContent = text;
}

function buildChoices(view) {
  const chains = [...new Set(view.options.map((o) => o.chain))];
  const preferred = view.wallet ?? view.options[0];
  state.chain = preferred?.chain ?? null;
  state.coin = preferred?.coin ?? null;
  ui.chainList.replaceChildren(
    ...chains.map((chain) => radio("chain", chain, CHAIN_NAMES[chain] ?? chain, chain === state.chain)),
  );
  fillCoins();
  ui.chainList.addEventListener("change", (event) => {
    state.chain = event.target.value;
    fillCoins();
  });
  ui.coinList.addEventListener("change", (event) => {
    state.coin = event.target.value;
    fillChoiceAmount();
  });
}

function fillCoins() {
  const coins = state.view.options.filter((o) => o.chain === state.chain).map((o) => o.coin);
  if (!coins.includes(state.coin)) state.coin = coins[0] ?? null;
  ui.coinList.replaceChildren(...coins.map((coin) => radio("coin", coin, coin, coin === state.coin)));
  fillChoiceAmount();
}

function fillChoiceAmount() {
  const option = state.view.options.find((o) => o.chain === state.chain && o.coin === state.coin);
  const network = option ? (CHAIN_NAMES[option.chain] ?? option.chain) : "";
  if (!option) ui.choiceAmount.textContent = "—";
  else if (option.amount === null) ui.choiceAmount.textContent = `${option.coin} on ${network}`;
  // A quoted coin's amount is an estimate until the quote locks the rate.
  else
    ui.choiceAmount.textContent = `${option.rate ? "about " : ""}${option.amount} ${option.coin} on ${network}`;
  ui.choiceRate.hidden = !option?.rate && option?.amount !== null;
  ui.choiceRate.textContent = !option
    ? ""
    : option.rate
      ? `1 ${option.coin} = ${option.rate} USD now. The rate is locked for a while when you continue.`
      : option.amount === null
        ? `No reliable ${option.coin} price right now. Try again in a moment, or pick another coin.`
        : "";
}

function radio(name, value, text, checked) {
  const label = document.createElement("label");
  label.className = "choice";
  const input = document.createElement("input");
  input.type = "radio";
  input.name = name;
  input.value = value;
  input.checked = checked;
  label.append(input, document.createTextNode(text));
  return label;
}

function fillWallet(wallet, canChange) {
  const network = CHAIN_NAMES[wallet.chain] ?? wallet.chain;
  ui.quoteRow.hidden = !wallet.quote;
  if (wallet.quote) ui.quoteRate.textContent = `1 ${wallet.coin} = ${wallet.quote.rate} USD`;
  renderQuote();
  ui.walletAmount.textContent = `${wallet.amount} ${wallet.coin}`;
  ui.walletAddress.textContent = wallet.address;
  ui.walletNetwork.textContent = network;
  const qrSrc = `/gateway/qr?${new URLSearchParams({ payment_id: paymentId, chain: wallet.chain, coin: wallet.coin })}`;
  if (ui.qr.getAttribute("src") !== qrSrc) ui.qr.src = qrSrc;
  ui.qr.alt = wallet.payment_uri
    ? `QR code of a ${network} payment request for ${wallet.amount} ${wallet.coin}`
    : `QR code of the ${network} deposit address`;
  ui.qrCaption.textContent = wallet.payment_uri
    ? "Scan with a Solana Pay wallet: amount and address are filled in."
    : `Scan the address with your ${network} wallet, then enter the amount.`;
  ui.walletLinkRow.hidden = !wallet.payment_uri;
  if (wallet.payment_uri) ui.walletLink.href = wallet.payment_uri;
  ui.warning.textContent = `Send only ${wallet.coin} on the ${network} network to this address, and the exact amount. This address is for this payment only.`;
  ui.change.hidden = !canChange;
}

function fillResult(view) {
  const step = ui.steps.result;
  const merchant = view.merchant_name || "the shop";
  const amount = `${view.amount} ${view.currency}`;
  let title;
  let text;
  let tone = "bad";
  switch (view.status) {
    case "completed":
      tone = "ok";
      title = "Paid";
      text = safeRedirect(view.redirect_url)
        ? `${merchant} has received your payment of ${amount}.`
        : `${merchant} has received your payment of ${amount}. You can close this page.`;
      break;
    case "underpaid":
      title = "Payment incomplete";
      text =
        "Less than the amount due arrived before the payment expired. What was received is being returned.";
      break;
    case "refunded":
      title = "Payment returned";
      text = "This payment was not completed, and the funds received were returned to the sender.";
      break;
    case "expired":
      title = "Payment expired";
      text = `Nothing was charged. Ask ${merchant} for a new payment link if you still want to pay.`;
      break;
    default:
      title = "Payment could not be completed";
      text = `Our team has been alerted. Please contact ${merchant} with this page's address.`;
  }
  step.dataset.tone = tone;
  ui.resultTitle.textContent = title;
  ui.resultText.textContent = text;

  const refunds = view.refunds ?? [];
  ui.refunds.hidden = refunds.length === 0;
  ui.refunds.replaceChildren(
    ...refunds.map((r) => {
      const item = document.createElement("li");
      const reason = REFUND_REASONS[r.reason] ?? "Refund";
      item.textContent = `${reason}: ${r.amount} ${r.coin} (${r.status === "sent" ? "sent" : "being sent"})`;
      return item;
    }),
  );

  if (view.status === "completed") scheduleRedirect(view.redirect_url);
}

/** Only http(s) targets: a `javascript:` URL stored by a merchant must never run here. */
function safeRedirect(url) {
  if (typeof url !== "string") return null;
  try {
    const target = new URL(url, location.href);
    return target.protocol === "https:" || target.protocol === "http:" ? target.href : null;
  } catch {
    return null;
  }
}

function scheduleRedirect(url) {
  const target = safeRedirect(url);
  if (!target || state.redirecting) return;
  state.redirecting = true;
  ui.redirectLink.href = target;
  ui.redirectRow.hidden = false;
  setTimeout(() => location.assign(target), REDIRECT_DELAY_MS);
}

// ---- Countdown ----------------------------------------------------------------------------

function remainingMs() {
  const expiresAt = Date.parse(state.view?.expires_at ?? ui.countdown.getAttribute("datetime"));
  return expiresAt - (Date.now() + state.clockOffsetMs);
}

function formatRemaining(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(h > 0 ? 2 : 1, "0");
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** Milliseconds left on the current wallet's quote, or null without one. */
function quoteRemainingMs() {
  const quote = state.view?.wallet?.quote;
  if (!quote) return null;
  return Date.parse(quote.expires_at) - (Date.now() + state.clockOffsetMs);
}

let announcedQuoteEnd = null;

/** The quote's countdown; once it ends the stale amount is hidden behind one "new quote" action. */
function renderQuote() {
  const ms = quoteRemainingMs();
  const ended = ms !== null && ms <= 0 && state.view?.status === "pending";
  if (ms !== null) ui.quoteCountdown.textContent = formatRemaining(ms);
  ui.quoteRunning.hidden = ms === null || ended;
  ui.quoteEnded.hidden = !ended;
  ui.refreshQuote.hidden = !ended;
  ui.walletDetails.hidden = ended;
  const expiresAt = state.view?.wallet?.quote?.expires_at;
  if (ended && announcedQuoteEnd !== expiresAt) {
    announcedQuoteEnd = expiresAt;
    announce("The quote has ended. Get a new quote before you send.");
  }
}

let announcedMinutes = null;

function renderCountdown() {
  const view = state.view;
  if (view?.wallet?.quote) renderQuote();
  const running = !view || view.status === "pending";
  ui.countdownRow.hidden = !running;
  if (!running) return;
  const ms = remainingMs();
  ui.countdown.textContent = formatRemaining(ms);
  ui.countdownRow.dataset.urgent = String(ms < 5 * 60_000);
  // A screen reader hears the clock only at a few moments, not every second.
  const minutes = ms > 0 ? Math.ceil(ms / 60_000) : 0;
  if ((minutes === 5 || minutes === 1) && announcedMinutes !== minutes && ms < minutes * 60_000 - 1000) {
    announcedMinutes = minutes;
    announce(`${minutes} minute${minutes === 1 ? "" : "s"} left to pay.`);
  }
  if (ms <= 0 && view) {
    renderStatus(view);
    setBusy(state.busy);
  }
}

setInterval(renderCountdown, 1000);

// ---- Actions ------------------------------------------------------------------------------

function setBusy(busy) {
  state.busy = busy;
  // Nothing more to do while a simulation is on its way: it settles the payment either way.
  const closed = state.view?.status !== "pending" || remainingMs() <= 0 || state.simulating !== null;
  ui.generate.disabled = busy || closed || !state.chain || !state.coin;
  for (const button of ui.testTools?.querySelectorAll("button") ?? []) button.disabled = busy || closed;
  ui.change.disabled = busy;
  ui.refreshQuote.disabled = busy || closed;
}

ui.steps.choose.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (state.busy || !state.chain || !state.coin) return;
  setBusy(true);
  hideAlert();
  try {
    const wallet = await api("POST", "/generate-wallet", { chain: state.chain, coin: state.coin });
    state.changedAt = Date.now();
    state.choosing = false;
    render({ ...state.view, wallet });
    announce(`Deposit address ready: send ${wallet.amount} ${wallet.coin}.`);
  } catch (err) {
    showAlert(err.message);
    schedulePoll(0);
  } finally {
    setBusy(false);
  }
});

// One action after a quote ends: the same choice again, at today's price.
ui.refreshQuote.addEventListener("click", async () => {
  const wallet = state.view?.wallet;
  if (state.busy || !wallet) return;
  setBusy(true);
  hideAlert();
  try {
    const fresh = await api("POST", "/generate-wallet", { chain: wallet.chain, coin: wallet.coin });
    state.changedAt = Date.now();
    render({ ...state.view, wallet: fresh });
    announce(`New quote: send ${fresh.amount} ${fresh.coin}.`);
  } catch (err) {
    showAlert(err.message);
    schedulePoll(0);
  } finally {
    setBusy(false);
  }
});

ui.change.addEventListener("click", () => {
  state.choosing = true;
  render(state.view);
});

ui.testTools?.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-simulate]");
  if (!button || state.busy) return;
  const outcome = button.dataset.simulate;
  setBusy(true);
  hideAlert();
  try {
    await api("POST", "/simulate", { outcome });
    state.simulating = outcome === "paid" ? "payment" : outcome;
    state.fastPollUntil = Date.now() + FAST_POLL_WINDOW_MS;
    renderStatus(state.view);
    schedulePoll(FAST_POLL_MS / 2);
  } catch (err) {
    showAlert(err.message);
    schedulePoll(0);
  } finally {
    setBusy(false);
  }
});

root.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button || !state.view?.wallet) return;
  const what = button.dataset.copy;
  const wallet = state.view.wallet;
  const text = what === "address" ? wallet.address : wallet.amount;
  const source = what === "address" ? ui.walletAddress : ui.walletAmount;
  const ok = await copyText(text, source);
  announce(
    ok ? `${what === "address" ? "Address" : "Amount"} copied.` : "Copying failed; select the text instead.",
  );
  // Only the visible word changes; the hidden rest keeps the name saying what is copied.
  const label = button.querySelector("[data-copy-label]");
  if (ok && label) {
    label.textContent = "Copied";
    setTimeout(() => {
      label.textContent = "Copy";
    }, 2000);
  }
});

async function copyText(text, source) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (insecure origin, old browser): select the text so a long-press copies it.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    return false;
  }
}

// ---- Messages -----------------------------------------------------------------------------

function announce(text) {
  // Clearing first makes a repeated message ("Address copied.") be read again.
  ui.announce.textContent = "";
  setTimeout(() => {
    ui.announce.textContent = text;
  }, 50);
}

function showAlert(text) {
  ui.alert.textContent = text;
  ui.alert.hidden = false;
}

function hideAlert() {
  if (!ui.alert.hidden) ui.alert.hidden = true;
}

renderCountdown();
poll();
followChanges();
