// The merchant dashboard: a small single-page app over the JSON API of the same host.
// Routing is by URL hash (#/payments, #/keys, ...). Every value from the server is written with
// textContent (through `h`), never as markup. The session JWT lives in sessionStorage, so it
// ends with the tab.

const TOKEN_KEY = "gateway.session";
const EMAIL_KEY = "gateway.pendingEmail";
const PAYMENT_STATUSES = [
  "pending",
  "confirming",
  "confirmed",
  "completed",
  "underpaid",
  "refunded",
  "expired",
  "failed",
];
const WEBHOOK_EVENT_TYPES = [
  "payment.confirming",
  "payment.confirmed",
  "payment.completed",
  "payment.underpaid",
  "payment.refunded",
  "payment.expired",
  "payment.failed",
  "payout.processing",
  "payout.completed",
  "payout.failed",
];
const PAYOUT_COINS = ["USDC", "USDT"];
const CHAINS = [
  { id: "solana", name: "Solana", hint: "A base58 public key, 32 to 44 characters." },
  { id: "sui", name: "Sui", hint: "0x followed by 64 hexadecimal digits." },
];

// ---------------------------------------------------------------------------------------------
// DOM helpers

/** Creates an element; attributes starting with "on" become listeners; children may be strings. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const main = () => document.getElementById("main");

function show(title, ...content) {
  document.title = `${title} · Gateway dashboard`;
  const heading = h("h1", { tabindex: "-1" }, title);
  main().replaceChildren(heading, ...content.flat());
  heading.focus();
}

let flashedAt = 0;

/** A message in the status region; it survives the navigation that follows it, then goes. */
function flash(message, kind = "info") {
  flashedAt = Date.now();
  const box = document.getElementById("flash");
  box.className = `flash flash-${kind}`;
  box.textContent = message;
}

function field(label, input, hint) {
  const id = input.id || `f-${Math.random().toString(36).slice(2)}`;
  input.id = id;
  const hintEl = hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null;
  if (hintEl) input.setAttribute("aria-describedby", hintEl.id);
  return h("div", { class: "field" }, h("label", { for: id }, label), input, hintEl);
}

/** A form whose submit runs `action`; errors land in its own alert box and on the field at fault. */
function form(attrs, fields, submitLabel, action) {
  const error = h("p", { class: "form-error", role: "alert" });
  const button = h("button", { type: "submit", class: "primary" }, submitLabel);
  const el = h(
    "form",
    { ...attrs, novalidate: true },
    ...fields,
    error,
    h("div", { class: "actions" }, button),
  );
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    for (const bad of el.querySelectorAll("[aria-invalid]")) bad.removeAttribute("aria-invalid");
    button.disabled = true;
    try {
      await action(new FormData(el));
    } catch (err) {
      error.textContent = err.message;
      const input = err.param ? el.querySelector(`[name="${CSS.escape(err.param)}"]`) : null;
      if (input) {
        input.setAttribute("aria-invalid", "true");
        input.focus();
      }
    } finally {
      button.disabled = false;
    }
  });
  return el;
}

function input(attrs) {
  return h("input", { type: "text", ...attrs });
}

function formatDate(iso) {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function chainName(id) {
  return CHAINS.find((c) => c.id === id)?.name ?? id;
}

function statusBadge(status) {
  return h("span", { class: `badge badge-${status}` }, status);
}

/**
 * Copies to the clipboard and says so in the status region, which screen readers announce. The
 * button's visible word changes; the hidden rest of its name says what it copies.
 */
async function copy(text, word, what) {
  try {
    await navigator.clipboard.writeText(text);
    word.textContent = "Copied";
    flash(`${what} copied to the clipboard.`, "success");
  } catch {
    flash(`Could not copy: select the ${what.toLowerCase()} and copy it by hand.`, "error");
  }
  setTimeout(() => {
    word.textContent = "Copy";
  }, 2000);
}

// ---------------------------------------------------------------------------------------------
// API

class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `Request failed (${status}).`);
    this.status = status;
    this.code = body?.error?.code;
    this.param = body?.error?.param;
  }
}

function token() {
  const value = sessionStorage.getItem(TOKEN_KEY);
  if (!value) return null;
  try {
    const payload = JSON.parse(atob(value.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
    if (payload.exp * 1000 > Date.now()) return value;
  } catch {
    // A token we cannot read is as good as none.
  }
  sessionStorage.removeItem(TOKEN_KEY);
  return null;
}

async function api(method, path, body) {
  const headers = { accept: "application/json" };
  const session = token();
  if (session) headers.authorization = `Bearer ${session}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    if (response.status === 401 && session) {
      sessionStorage.removeItem(TOKEN_KEY);
      flash("Your session has ended. Log in again.", "error");
      go("#/login");
    }
    throw new ApiError(response.status, data);
  }
  return data;
}

// ---------------------------------------------------------------------------------------------
// Routing

function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

/**
 * The signed-in pages, in navigation order. A feature adds its page by adding an entry here
 * (and its JSON under /dashboard/api or its own routes): the nav is drawn from this list.
 */
const PAGES = [
  { path: "payments", title: "Payments", render: paymentsPage },
  { path: "keys", title: "API keys", render: keysPage },
  { path: "wallets", title: "Payout wallets", render: walletsPage },
  { path: "webhooks", title: "Webhooks", render: webhooksPage },
  { path: "payouts", title: "Balances & payouts", render: payoutsPage },
  { path: "schedule", title: "Payout schedule", render: schedulePage },
];

const PUBLIC_PAGES = { login: loginPage, signup: signupPage, verify: verifyPage };

let me = null;

async function route() {
  if (Date.now() - flashedAt > 1500) document.getElementById("flash").textContent = "";
  const [path, ...rest] = location.hash.replace(/^#\/?/, "").split("?")[0].split("/");
  const publicPage = PUBLIC_PAGES[path];
  if (publicPage) {
    me = null;
    drawChrome(null);
    return publicPage();
  }
  if (!token()) return go("#/login");
  try {
    me ??= await api("GET", "/auth/me");
  } catch {
    return;
  }
  const page = PAGES.find((p) => p.path === path);
  if (!page) return go("#/payments");
  drawChrome(page.path);
  try {
    await page.render(...rest.map(decodeURIComponent));
  } catch (err) {
    if (err.status !== 401) show("Something went wrong", h("p", { class: "panel" }, err.message));
  }
}

function drawChrome(current) {
  const nav = document.getElementById("nav");
  const account = document.getElementById("account");
  if (!me) {
    nav.hidden = true;
    account.hidden = true;
    return;
  }
  nav.hidden = false;
  nav.replaceChildren(
    h(
      "ul",
      {},
      PAGES.map((page) =>
        h(
          "li",
          {},
          h(
            "a",
            { href: `#/${page.path}`, "aria-current": page.path === current ? "page" : null },
            page.title,
          ),
        ),
      ),
    ),
  );
  account.hidden = false;
  account.replaceChildren(
    h("span", { class: "who", title: me.email }, me.business_name),
    h(
      "button",
      {
        type: "button",
        class: "link",
        onclick: () => {
          sessionStorage.removeItem(TOKEN_KEY);
          me = null;
          flash("You are logged out.");
          go("#/login");
        },
      },
      "Log out",
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Sign-up, verification, login

function signupPage() {
  show(
    "Create your account",
    form(
      { "aria-label": "Sign up" },
      [
        field("E-mail", input({ type: "email", name: "email", autocomplete: "email", required: true })),
        field(
          "Business name",
          input({ name: "business_name", autocomplete: "organization", required: true, maxlength: 100 }),
          "Shown to your customers on the checkout page.",
        ),
        field(
          "Password",
          input({
            type: "password",
            name: "password",
            autocomplete: "new-password",
            required: true,
            minlength: 10,
          }),
          "At least 10 characters.",
        ),
      ],
      "Sign up",
      async (data) => {
        const email = String(data.get("email")).trim();
        await api("POST", "/auth/signup", {
          email,
          business_name: String(data.get("business_name")),
          password: String(data.get("password")),
        });
        sessionStorage.setItem(EMAIL_KEY, email);
        flash(`We sent a 6-digit code to ${email}.`, "success");
        go("#/verify");
      },
    ),
    h("p", {}, "Already have an account? ", h("a", { href: "#/login" }, "Log in")),
  );
}

function verifyPage() {
  const email = sessionStorage.getItem(EMAIL_KEY) ?? "";
  show(
    "Verify your e-mail",
    h("p", {}, "Enter the 6-digit code we e-mailed you. It is valid for 10 minutes."),
    form(
      { "aria-label": "Verify e-mail" },
      [
        field(
          "E-mail",
          input({ type: "email", name: "email", autocomplete: "email", value: email, required: true }),
        ),
        field(
          "Code",
          input({
            name: "code",
            inputmode: "numeric",
            autocomplete: "one-time-code",
            pattern: "[0-9]{6}",
            maxlength: 6,
            required: true,
          }),
        ),
      ],
      "Verify",
      async (data) => {
        const address = String(data.get("email")).trim();
        await api("POST", "/auth/verify-email", { email: address, code: String(data.get("code")).trim() });
        sessionStorage.setItem(EMAIL_KEY, address);
        flash("Your e-mail is verified. Log in to continue.", "success");
        go("#/login");
      },
    ),
    h(
      "p",
      {},
      "No code? Sign up again with the same e-mail to get a new one: ",
      h("a", { href: "#/signup" }, "Sign up"),
    ),
  );
}

function loginPage() {
  show(
    "Log in",
    form(
      { "aria-label": "Log in" },
      [
        field(
          "E-mail",
          input({
            type: "email",
            name: "email",
            autocomplete: "username",
            value: sessionStorage.getItem(EMAIL_KEY) ?? "",
            required: true,
          }),
        ),
        field(
          "Password",
          input({ type: "password", name: "password", autocomplete: "current-password", required: true }),
        ),
      ],
      "Log in",
      async (data) => {
        try {
          const { token: jwt } = await api("POST", "/auth/login", {
            email: String(data.get("email")).trim(),
            password: String(data.get("password")),
          });
          sessionStorage.setItem(TOKEN_KEY, jwt);
        } catch (err) {
          if (err.code === "email_not_verified") {
            sessionStorage.setItem(EMAIL_KEY, String(data.get("email")).trim());
            flash("Verify your e-mail first: enter the code we sent you.", "error");
            go("#/verify");
            return;
          }
          throw err;
        }
        sessionStorage.removeItem(EMAIL_KEY);
        flash("");
        go("#/payments");
      },
    ),
    h("p", {}, "New here? ", h("a", { href: "#/signup" }, "Create an account")),
  );
}

// ---------------------------------------------------------------------------------------------
// Payments

async function paymentsPage(id) {
  if (id) return paymentDetail(id);
  const params = new URLSearchParams(location.hash.split("?")[1] ?? "");
  const mode = params.get("mode") === "live" ? "live" : "test";
  const status = PAYMENT_STATUSES.includes(params.get("status")) ? params.get("status") : "";

  const modeSelect = h(
    "select",
    { name: "mode" },
    h("option", { value: "test", selected: mode === "test" }, "Test"),
    h("option", { value: "live", selected: mode === "live" }, "Live"),
  );
  const statusSelect = h(
    "select",
    { name: "status" },
    h("option", { value: "" }, "All"),
    PAYMENT_STATUSES.map((s) => h("option", { value: s, selected: s === status }, s)),
  );
  const filters = h(
    "form",
    { class: "filters", "aria-label": "Filter payments" },
    field("Mode", modeSelect),
    field("Status", statusSelect),
  );
  const applyFilters = () => {
    const query = new URLSearchParams({ mode: modeSelect.value });
    if (statusSelect.value) query.set("status", statusSelect.value);
    go(`#/payments?${query}`);
  };
  modeSelect.addEventListener("change", applyFilters);
  statusSelect.addEventListener("change", applyFilters);
  filters.addEventListener("submit", (e) => e.preventDefault());

  const body = h("tbody");
  const table = h(
    "table",
    { class: "list" },
    h("caption", { class: "visually-hidden" }, `${mode === "test" ? "Test" : "Live"} payments, newest first`),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Amount"),
        h("th", { scope: "col" }, "Status"),
        h("th", { scope: "col" }, "Description"),
        h("th", { scope: "col" }, "Created"),
      ),
    ),
    body,
  );
  const empty = h("p", { class: "panel", hidden: true }, "No payments match these filters yet.");
  const more = h("button", { type: "button", hidden: true }, "Load more");
  show("Payments", filters, empty, h("div", { class: "table-wrap" }, table), more);

  let last = null;
  async function load() {
    const query = new URLSearchParams({ mode, limit: "25" });
    if (status) query.set("status", status);
    if (last) query.set("starting_after", last);
    const page = await api("GET", `/dashboard/api/payments?${query}`);
    for (const p of page.data) {
      body.append(
        h(
          "tr",
          { dataset: { paymentId: p.id } },
          h(
            "td",
            { "data-label": "Amount" },
            h("a", { href: `#/payments/${encodeURIComponent(p.id)}` }, `${p.amount} ${p.currency}`),
          ),
          h("td", { "data-label": "Status" }, statusBadge(p.status)),
          h("td", { "data-label": "Description" }, p.description ?? "—"),
          h(
            "td",
            { "data-label": "Created" },
            h("time", { datetime: p.created_at }, formatDate(p.created_at)),
          ),
        ),
      );
    }
    last = page.data.at(-1)?.id ?? last;
    more.hidden = !page.has_more;
    empty.hidden = body.children.length > 0;
    table.hidden = body.children.length === 0;
  }
  more.addEventListener("click", () => load().catch((err) => flash(err.message, "error")));
  await load();
}

async function paymentDetail(id) {
  const { payment, events } = await api("GET", `/dashboard/api/payments/${encodeURIComponent(id)}`);
  const rows = [
    ["Amount", `${payment.amount} ${payment.currency}`],
    ["Status", statusBadge(payment.status)],
    ["Mode", payment.is_test ? "Test" : "Live"],
    ["Fee", `${payment.fee} ${payment.currency}`],
    ["Description", payment.description ?? "—"],
    ["Paid with", payment.coin ? `${payment.coin} on ${chainName(payment.chain)}` : "—"],
    ["Deposit address", payment.deposit_address ? h("code", {}, payment.deposit_address) : "—"],
    ["Received", payment.coin ? `${payment.amount_received} ${payment.coin}` : "—"],
    ...(payment.overpaid_amount ? [["Overpaid", `${payment.overpaid_amount} ${payment.coin}`]] : []),
    ...payment.refunds.map((r) => [
      `Refund (${r.reason})`,
      h(
        "span",
        {},
        `${r.amount} ${r.coin}`,
        r.to ? [" to ", h("code", {}, r.to)] : null,
        ` · ${r.simulated ? "simulated" : r.status}`,
        r.transaction_hash ? h("code", { class: "event-id" }, ` ${r.transaction_hash}`) : null,
      ),
    ]),
    ["Created", formatDate(payment.created_at)],
    ["Expires", formatDate(payment.expires_at)],
    ["Payment ID", h("code", {}, payment.id)],
    ["Checkout", h("a", { href: payment.checkout_url, rel: "noreferrer" }, "Open the checkout page")],
  ];
  // The creation is not an event (nothing is sent for it) but it starts every timeline.
  const entries = [{ id: null, type: "payment.created", created_at: payment.created_at }, ...events];
  const timeline = h(
    "ol",
    { class: "timeline", "aria-label": "Payment events, oldest first" },
    entries.map((e) =>
      h(
        "li",
        { dataset: e.id ? { eventId: e.id } : {} },
        h("span", { class: "event-type" }, e.type),
        h("time", { datetime: e.created_at }, formatDate(e.created_at)),
        e.id ? h("code", { class: "event-id" }, e.id) : null,
      ),
    ),
  );
  show(
    `Payment ${payment.amount} ${payment.currency}`,
    h("p", {}, h("a", { href: `#/payments?mode=${payment.is_test ? "test" : "live"}` }, "← All payments")),
    h(
      "dl",
      { class: "details" },
      rows.map(([term, value]) => h("div", {}, h("dt", {}, term), h("dd", {}, value))),
    ),
    h("h2", {}, "Timeline"),
    timeline,
  );
}

// ---------------------------------------------------------------------------------------------
// API keys

async function keysPage() {
  const reveal = h("section", { class: "reveal", hidden: true, "aria-labelledby": "reveal-title" });
  const list = h("div");
  const generate = h("button", { type: "button", class: "primary" }, "Generate a keypair");
  generate.addEventListener("click", async () => {
    generate.disabled = true;
    try {
      const created = await api("POST", "/api-keys", {});
      showReveal(reveal, created);
      await drawKeys(list);
    } catch (err) {
      flash(err.message, "error");
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
    h("div", { class: "actions" }, generate),
    reveal,
    list,
  );
  await drawKeys(list);
}

function showReveal(section, created) {
  const keyRow = (label, value, name) => {
    const box = h("input", { readonly: true, value, name, class: "secret", spellcheck: "false" });
    const word = h("span", {}, "Copy");
    const button = h(
      "button",
      { type: "button" },
      word,
      h("span", { class: "visually-hidden" }, ` the ${label.toLowerCase()}`),
    );
    button.addEventListener("click", () => copy(value, word, label));
    return h("div", { class: "field" }, h("label", {}, label, box), button);
  };
  section.replaceChildren(
    h("h2", { id: "reveal-title" }, "Your new keys"),
    h(
      "p",
      { class: "warning" },
      h("strong", {}, "Copy them now. "),
      "This is the only time they are shown; we store only a fingerprint.",
    ),
    keyRow("Test key", created.test_key, "test_key"),
    keyRow("Live key", created.live_key, "live_key"),
    h(
      "div",
      { class: "actions" },
      h(
        "button",
        {
          type: "button",
          onclick: () => {
            section.replaceChildren();
            section.hidden = true;
          },
        },
        "I have saved them",
      ),
    ),
  );
  section.hidden = false;
  section.querySelector("h2").setAttribute("tabindex", "-1");
  section.querySelector("h2").focus();
}

async function drawKeys(container) {
  const { data } = await api("GET", "/api-keys");
  if (data.length === 0) {
    container.replaceChildren(h("p", { class: "panel" }, "No keys yet."));
    return;
  }
  container.replaceChildren(
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "list" },
        h("caption", { class: "visually-hidden" }, "Your API keypairs"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, "Test key"),
            h("th", { scope: "col" }, "Live key"),
            h("th", { scope: "col" }, "Status"),
            h("th", { scope: "col" }, "Created"),
            h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Action")),
          ),
        ),
        h(
          "tbody",
          {},
          data.map((k) => {
            const action = h(
              "button",
              { type: "button", class: k.active ? "danger" : "" },
              k.active ? "Deactivate" : "Activate",
            );
            action.setAttribute(
              "aria-label",
              `${k.active ? "Deactivate" : "Activate"} keypair ${k.test_key_prefix}`,
            );
            action.addEventListener("click", async () => {
              action.disabled = true;
              try {
                await api(
                  "POST",
                  `/api-keys/${encodeURIComponent(k.id)}/${k.active ? "deactivate" : "activate"}`,
                  {},
                );
                flash(
                  k.active ? "Keypair deactivated: both keys stop working now." : "Keypair activated.",
                  "success",
                );
                await drawKeys(container);
              } catch (err) {
                flash(err.message, "error");
                action.disabled = false;
              }
            });
            return h(
              "tr",
              { dataset: { keypairId: k.id } },
              h("td", { "data-label": "Test key" }, h("code", {}, k.test_key_prefix)),
              h("td", { "data-label": "Live key" }, h("code", {}, k.live_key_prefix)),
              h(
                "td",
                { "data-label": "Status" },
                h(
                  "span",
                  { class: `badge ${k.active ? "badge-completed" : "badge-expired"}` },
                  k.active ? "active" : "inactive",
                ),
              ),
              h("td", { "data-label": "Created" }, formatDate(k.created_at)),
              h("td", {}, action),
            );
          }),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Payout wallets

async function walletsPage() {
  const { data } = await api("GET", "/payout-wallets");
  show(
    "Payout wallets",
    h(
      "p",
      {},
      "One wallet per chain receives your payouts. Setting or changing one takes a code we e-mail you.",
    ),
    CHAINS.map((chain) =>
      walletSection(
        chain,
        data.find((w) => w.chain === chain.id),
      ),
    ),
  );
}

function walletSection(chain, wallet) {
  const section = h("section", { class: "panel wallet", "aria-labelledby": `wallet-${chain.id}` });
  const current = wallet
    ? h("p", {}, "Current: ", h("code", { class: "address" }, wallet.address))
    : h("p", {}, "No wallet set yet.");
  const step2 = h("div", { hidden: true });
  const step1 = form(
    { "aria-label": `New ${chain.name} payout wallet` },
    [
      field(
        `New ${chain.name} address`,
        input({ name: "address", autocomplete: "off", spellcheck: "false" }),
        chain.hint,
      ),
    ],
    "E-mail me a code",
    async (data) => {
      const address = String(data.get("address")).trim();
      const sent = await api("POST", `/payout-wallets/${chain.id}/request-code`, { address });
      step2.replaceChildren(
        h("p", {}, `We sent a code to ${sent.sent_to}. It confirms this address only.`),
        form(
          { "aria-label": `Confirm ${chain.name} payout wallet` },
          [
            field(
              "Code",
              input({
                name: "otp",
                inputmode: "numeric",
                autocomplete: "one-time-code",
                pattern: "[0-9]{6}",
                maxlength: 6,
              }),
            ),
          ],
          "Save wallet",
          async (confirm) => {
            await api("PUT", `/payout-wallets/${chain.id}`, {
              address: sent.address,
              otp: String(confirm.get("otp")).trim(),
            });
            flash(`${chain.name} payout wallet saved.`, "success");
            await walletsPage();
          },
        ),
      );
      step2.hidden = false;
      step2.querySelector("input").focus();
    },
  );
  section.append(h("h2", { id: `wallet-${chain.id}` }, chain.name), current, step1, step2);
  return section;
}

// ---------------------------------------------------------------------------------------------
// Shared by the money and webhook pages

/** `test` unless the hash asks for `live`: like the payments list, pages start on test mode. */
function modeFromHash() {
  return new URLSearchParams(location.hash.split("?")[1] ?? "").get("mode") === "live" ? "live" : "test";
}

function modeName(mode) {
  return mode === "live" ? "Live" : "Test";
}

/** A Mode select that reloads the page at `#/<path>?mode=`. */
function modeFilter(path, mode, label) {
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

/** A table that turns into cards on phones; `rows` are arrays of [label, value] cells. */
function listTable(caption, headings, rows, rowData = () => ({})) {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "list" },
      h("caption", { class: "visually-hidden" }, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          headings.map((name) =>
            h("th", { scope: "col" }, name ? name : h("span", { class: "visually-hidden" }, "Action")),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((cells, i) =>
          h(
            "tr",
            { dataset: rowData(i) },
            cells.map(([label, value]) => h("td", label ? { "data-label": label } : {}, value)),
          ),
        ),
      ),
    ),
  );
}

/** A value shown once (a webhook secret), with a copy button and a dismissal. */
function revealOnce(section, title, warning, label, value, name) {
  const word = h("span", {}, "Copy");
  const button = h(
    "button",
    { type: "button" },
    word,
    h("span", { class: "visually-hidden" }, ` the ${label.toLowerCase()}`),
  );
  button.addEventListener("click", () => copy(value, word, label));
  section.replaceChildren(
    h("h2", { id: `${name}-title`, tabindex: "-1" }, title),
    h("p", { class: "warning" }, h("strong", {}, "Copy it now. "), warning),
    h(
      "div",
      { class: "field" },
      h(
        "label",
        {},
        label,
        h("input", { readonly: true, value, name, class: "secret", spellcheck: "false" }),
      ),
      button,
    ),
    h(
      "div",
      { class: "actions" },
      h(
        "button",
        {
          type: "button",
          onclick: () => {
            section.replaceChildren();
            section.hidden = true;
          },
        },
        "I have saved it",
      ),
    ),
  );
  section.setAttribute("aria-labelledby", `${name}-title`);
  section.hidden = false;
  section.querySelector("h2").focus();
}

/** Re-runs `load` every `everyMs` while `isBusy()` and `anchor` is still on the page. */
function refreshWhile(anchor, isBusy, load, everyMs = 1000) {
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

// ---------------------------------------------------------------------------------------------
// Webhooks

async function webhooksPage(id) {
  if (id) return webhookDeliveriesPage(id);
  const mode = modeFromHash();
  const reveal = h("section", { class: "reveal", hidden: true });
  const list = h("div");
  const eventBoxes = WEBHOOK_EVENT_TYPES.map((type) =>
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "events", value: type }), type),
  );
  const allEvents = h("input", { type: "checkbox", name: "all_events", checked: true });
  const syncEvents = () => {
    for (const box of eventBoxes) box.querySelector("input").disabled = allEvents.checked;
  };
  allEvents.addEventListener("change", syncEvents);
  syncEvents();
  const register = form(
    { "aria-label": "Register a webhook endpoint" },
    [
      field(
        "Endpoint URL",
        input({ type: "url", name: "url", autocomplete: "url", spellcheck: "false", required: true }),
        "https:// (http:// is allowed for test endpoints). Private and loopback addresses are refused.",
      ),
      field(
        "Mode",
        h(
          "select",
          { name: "is_test" },
          h("option", { value: "true", selected: mode === "test" }, "Test (simulated payments)"),
          h("option", { value: "false", selected: mode === "live" }, "Live"),
        ),
      ),
      h(
        "fieldset",
        { class: "checks", name: "events" },
        h("legend", {}, "Events"),
        h("label", { class: "check" }, allEvents, "All events, including ones added later"),
        eventBoxes,
      ),
      field("Description", input({ name: "description", maxlength: 500 }), "Optional, for you only."),
    ],
    "Register endpoint",
    async (data) => {
      const events = allEvents.checked ? ["*"] : data.getAll("events").map(String);
      if (events.length === 0) {
        const err = new Error("Pick at least one event, or All events.");
        err.param = "all_events";
        throw err;
      }
      const description = String(data.get("description") ?? "").trim();
      const isTest = data.get("is_test") === "true";
      const created = await api("POST", "/dashboard/api/webhooks", {
        url: String(data.get("url")).trim(),
        is_test: isTest,
        events,
        ...(description ? { description } : {}),
      });
      register.reset();
      syncEvents();
      revealOnce(
        reveal,
        "Your endpoint's signing secret",
        "It is shown only this once; to get a new one, delete the endpoint and register it again.",
        "Signing secret",
        created.secret,
        "webhook_secret",
      );
      if ((isTest ? "test" : "live") === mode) await drawWebhooks(list, mode);
    },
  );
  show(
    "Webhooks",
    h(
      "p",
      {},
      "We POST every event of your payments and payouts to these URLs, signed with the endpoint's secret. Test events go to test endpoints only.",
    ),
    modeFilter("webhooks", mode, "Choose the mode"),
    list,
    reveal,
    h("h2", {}, "Register an endpoint"),
    register,
  );
  await drawWebhooks(list, mode);
}

async function drawWebhooks(container, mode) {
  const { data } = await api("GET", `/dashboard/api/webhooks?mode=${mode}`);
  if (data.length === 0) {
    container.replaceChildren(h("p", { class: "panel" }, `No ${mode} endpoints yet.`));
    return;
  }
  container.replaceChildren(
    listTable(
      `${modeName(mode)} webhook endpoints, newest first`,
      ["URL", "Events", "Description", "Created", ""],
      data.map((w) => {
        const remove = h("button", { type: "button", class: "danger" }, "Delete");
        remove.setAttribute("aria-label", `Delete endpoint ${w.url}`);
        remove.addEventListener("click", async () => {
          if (!window.confirm(`Delete the endpoint ${w.url}? Its pending deliveries are canceled.`)) return;
          remove.disabled = true;
          try {
            await api("DELETE", `/dashboard/api/webhooks/${encodeURIComponent(w.id)}`);
            flash("Endpoint deleted.", "success");
            await drawWebhooks(container, mode);
          } catch (err) {
            flash(err.message, "error");
            remove.disabled = false;
          }
        });
        return [
          ["URL", h("code", {}, w.url)],
          ["Events", w.events.includes("*") ? "All events" : w.events.join(", ")],
          ["Description", w.description ?? "—"],
          ["Created", formatDate(w.created_at)],
          [
            null,
            h(
              "div",
              { class: "row-actions" },
              h(
                "a",
                { href: `#/webhooks/${encodeURIComponent(w.id)}`, "aria-label": `Deliveries to ${w.url}` },
                "Deliveries",
              ),
              remove,
            ),
          ],
        ];
      }),
      (i) => ({ endpointId: data[i].id }),
    ),
  );
}

async function webhookDeliveriesPage(id) {
  const { data: endpoints } = await api("GET", "/dashboard/api/webhooks");
  const endpoint = endpoints.find((w) => w.id === id);
  if (!endpoint) {
    show("Endpoint not found", h("p", { class: "panel" }, "This endpoint does not exist or was deleted."));
    return;
  }
  const path = `/dashboard/api/webhooks/${encodeURIComponent(id)}`;
  const list = h("div", { class: "deliveries" });
  const empty = h("p", { class: "panel", hidden: true }, "No deliveries yet.");
  const more = h("button", { type: "button", hidden: true }, "Load more");
  const refresh = h("button", { type: "button" }, "Refresh");
  let last = null;
  let shown = [];

  async function load(reset) {
    const query = new URLSearchParams({ limit: "20" });
    if (!reset && last) query.set("starting_after", last);
    const page = await api("GET", `${path}/deliveries?${query}`);
    shown = reset ? page.data : [...shown, ...page.data];
    list.replaceChildren(...shown.map(deliveryCard));
    last = shown.at(-1)?.id ?? null;
    more.hidden = !page.has_more;
    empty.hidden = shown.length > 0;
  }

  async function redeliver(eventId) {
    await api("POST", `${path}/redeliver`, { event_id: eventId });
    flash(`Event ${eventId} is being sent again.`, "success");
    await load(true);
    // The attempt runs in the notifier: follow it until it is recorded.
    refreshWhile(
      list,
      () => shown.some((d) => d.event_id === eventId && d.status === "pending"),
      () => load(true),
    );
  }

  function deliveryCard(d) {
    const again = h("button", { type: "button" }, "Redeliver");
    again.setAttribute("aria-label", `Redeliver ${d.event_type} ${d.event_id}`);
    again.addEventListener("click", async () => {
      again.disabled = true;
      try {
        await redeliver(d.event_id);
      } catch (err) {
        flash(err.message, "error");
        again.disabled = false;
      }
    });
    const titleId = `delivery-${d.id}`;
    return h(
      "section",
      {
        class: "panel delivery",
        "aria-labelledby": titleId,
        dataset: { deliveryId: d.id, eventId: d.event_id },
      },
      h("h2", { id: titleId }, h("span", { class: "event-type" }, d.event_type), " ", statusBadge(d.status)),
      h(
        "dl",
        { class: "details" },
        [
          ["Event", h("code", {}, d.event_id)],
          ["Created", formatDate(d.created_at)],
          ["Attempts", String(d.attempts)],
          ...(d.next_attempt_at ? [["Next attempt", formatDate(d.next_attempt_at)]] : []),
        ].map(([term, value]) => h("div", {}, h("dt", {}, term), h("dd", {}, value))),
      ),
      d.attempt_log.length === 0
        ? h("p", {}, "Not attempted yet.")
        : listTable(
            `Attempts to deliver ${d.event_id}`,
            ["Attempt", "Sent", "Status", "Latency", "Response"],
            d.attempt_log.map((a) => [
              ["Attempt", String(a.attempt)],
              ["Sent", formatDate(a.started_at)],
              ["Status", a.status_code === null ? "no answer" : String(a.status_code)],
              ["Latency", a.latency_ms === null ? "—" : `${a.latency_ms} ms`],
              [
                "Response",
                a.error
                  ? h("span", { class: "warning" }, a.error)
                  : h("code", { class: "excerpt" }, a.response_excerpt || "(empty)"),
              ],
            ]),
          ),
      h("div", { class: "actions" }, again),
    );
  }

  const resend = form(
    { "aria-label": "Send an event to this endpoint" },
    [
      field(
        "Event ID",
        input({ name: "event_id", spellcheck: "false", placeholder: "evt_…" }),
        "Any event of this mode, also one this endpoint never received.",
      ),
    ],
    "Send event",
    async (data) => redeliver(String(data.get("event_id")).trim()),
  );
  refresh.addEventListener("click", () => load(true).catch((err) => flash(err.message, "error")));
  more.addEventListener("click", () => load(false).catch((err) => flash(err.message, "error")));
  show(
    "Webhook deliveries",
    h("p", {}, h("a", { href: `#/webhooks?mode=${endpoint.is_test ? "test" : "live"}` }, "← All endpoints")),
    h(
      "dl",
      { class: "details" },
      [
        ["URL", h("code", {}, endpoint.url)],
        ["Mode", endpoint.is_test ? "Test" : "Live"],
        ["Events", endpoint.events.includes("*") ? "All events" : endpoint.events.join(", ")],
      ].map(([term, value]) => h("div", {}, h("dt", {}, term), h("dd", {}, value))),
    ),
    h("div", { class: "actions" }, refresh),
    empty,
    list,
    more,
    h("h2", {}, "Send an event again"),
    resend,
  );
  await load(true);
}

// ---------------------------------------------------------------------------------------------
// Balances and payouts

/** Clearer words for the payout errors a merchant can fix; the server's message otherwise. */
function payoutError(err, pending, context) {
  if (err.code === "insufficient_balance") {
    const chain = context.balances.find((b) => b.chain === pending.chain);
    const coin = chain?.coins.find((c) => c.coin === pending.coin);
    err.message = `Insufficient balance: ${pending.amount} ${pending.coin} is more than the ${
      coin?.available ?? "0.00"
    } ${pending.coin} available on ${chainName(pending.chain)}.`;
  } else if (err.code === "code_invalid") {
    err.message =
      "That code is wrong, has expired or was used. Check the newest mail, or ask for a new code (5 wrong tries void it).";
  }
  return err;
}

async function payoutsPage() {
  const mode = modeFromHash();
  let context = await api("GET", `/payouts/context?mode=${mode}`);
  const balances = h("div", { class: "balances" });
  const payoutList = h("div");
  const more = h("button", { type: "button", hidden: true }, "Load more");
  const payoutsHeading = h("h2", { tabindex: "-1" }, "Payouts");
  let payouts = [];
  let last = null;

  /** Reads the balances again; the payout form's hints and messages use the newest ones. */
  async function reloadBalances() {
    context = await api("GET", `/payouts/context?mode=${mode}`);
    drawBalances(context);
  }

  function drawBalances(ctx) {
    balances.replaceChildren(
      h(
        "p",
        { class: "total" },
        "Available to pay out: ",
        h("strong", { dataset: { total: "" } }, `${ctx.total_available.toFixed(2)} USD`),
        " (USDC and USDT)",
      ),
      ...ctx.balances.map((b) => {
        const wallet = ctx.wallets.find((w) => w.chain === b.chain);
        return h(
          "section",
          { class: "panel balance", "aria-labelledby": `balance-${b.chain}`, dataset: { chain: b.chain } },
          h("h2", { id: `balance-${b.chain}` }, chainName(b.chain)),
          h(
            "dl",
            { class: "details" },
            [
              ["Available", `${b.available.toFixed(2)} USD`],
              ["Pending payouts", `${b.pending.toFixed(2)} USD`],
              ["Network fee per manual payout", `${b.manual_payout_network_fee} USDC/USDT`],
              [
                "Payout wallet",
                wallet ? h("code", {}, wallet.address) : h("a", { href: "#/wallets" }, "Link one"),
              ],
            ].map(([term, value]) => h("div", {}, h("dt", {}, term), h("dd", {}, value))),
          ),
          b.coins.length === 0
            ? h("p", {}, "No balance on this chain yet.")
            : listTable(
                `${chainName(b.chain)} balance per coin`,
                ["Coin", "Available", "Pending", "Payouts"],
                b.coins.map((c) => [
                  ["Coin", c.coin],
                  ["Available", c.available],
                  ["Pending", c.pending],
                  ["Payouts", c.payable ? "yes" : "not offered"],
                ]),
                (i) => ({ coin: b.coins[i].coin }),
              ),
        );
      }),
    );
  }

  function drawPayouts() {
    if (payouts.length === 0) {
      payoutList.replaceChildren(h("p", { class: "panel" }, `No ${mode} payouts yet.`));
      return;
    }
    payoutList.replaceChildren(
      listTable(
        `${modeName(mode)} payouts, newest first`,
        ["Amount", "Status", "Chain", "Destination", "Transaction", "Created"],
        payouts.map((p) => [
          [
            "Amount",
            h(
              "span",
              {},
              `${p.amount} ${p.coin}`,
              p.network_fee !== "0.00"
                ? h("span", { class: "hint-inline" }, ` (receives ${p.net_amount})`)
                : null,
            ),
          ],
          [
            "Status",
            h(
              "span",
              {},
              statusBadge(p.status),
              p.kind === "scheduled" ? " scheduled" : null,
              p.failure_reason ? h("span", { class: "warning" }, ` ${p.failure_reason}`) : null,
            ),
          ],
          ["Chain", chainName(p.chain)],
          ["Destination", h("code", {}, p.destination)],
          [
            "Transaction",
            p.transaction_hash ? h("code", {}, p.transaction_hash) : p.simulated ? "simulated" : "—",
          ],
          ["Created", h("time", { datetime: p.created_at }, formatDate(p.created_at))],
        ]),
        (i) => ({ payoutId: payouts[i].id }),
      ),
    );
  }

  async function loadPayouts(reset) {
    const query = new URLSearchParams({ mode, limit: "25" });
    if (!reset && last) query.set("starting_after", last);
    const page = await api("GET", `/payouts?${query}`);
    payouts = reset ? page.data : [...payouts, ...page.data];
    last = payouts.at(-1)?.id ?? null;
    more.hidden = !page.has_more;
    drawPayouts();
  }

  /** After a payout, follow it (and the balances) until settlement has finished it. */
  function follow() {
    refreshWhile(
      payoutList,
      () => payouts.some((p) => p.status === "pending" || p.status === "processing"),
      async () => {
        await loadPayouts(true);
        await reloadBalances();
      },
    );
  }

  more.addEventListener("click", () => loadPayouts(false).catch((err) => flash(err.message, "error")));
  drawBalances(context);
  show(
    "Balances & payouts",
    modeFilter("payouts", mode, "Choose the mode"),
    mode === "test"
      ? h("p", {}, "Test mode: balances come from simulated payments and payouts move nothing.")
      : [],
    balances,
    h("h2", {}, "Pay out"),
    payoutForm(
      mode,
      () => context,
      async () => {
        // The form that had focus is gone: move it to the list where the new payout is.
        payoutsHeading.focus();
        await loadPayouts(true);
        await reloadBalances();
        follow();
      },
    ),
    payoutsHeading,
    payoutList,
    more,
  );
  await loadPayouts(true);
  follow();
}

/** Two steps: what to pay and where → a code mailed for that destination → the payout. */
function payoutForm(mode, currentContext, done) {
  const wrap = h("div", { class: "payout-form" });
  const step2 = h("div", { hidden: true });
  const chainSelect = h(
    "select",
    { name: "chain" },
    CHAINS.map((c) => h("option", { value: c.id }, c.name)),
  );
  const walletHint = h("p", { class: "hint", id: "payout-destination-wallet" });
  const syncHint = () => {
    const wallet = currentContext().wallets.find((w) => w.chain === chainSelect.value);
    walletHint.textContent = wallet
      ? `Leave empty to pay your ${chainName(wallet.chain)} payout wallet ${wallet.address}.`
      : `No ${chainName(chainSelect.value)} payout wallet is linked: enter an address.`;
  };
  chainSelect.addEventListener("change", syncHint);
  const destination = input({ name: "destination_address", autocomplete: "off", spellcheck: "false" });
  const step1 = form(
    { "aria-label": "Payout details" },
    [
      field("Chain", chainSelect),
      field(
        "Coin",
        h(
          "select",
          { name: "coin_symbol" },
          PAYOUT_COINS.map((c) => h("option", { value: c }, c)),
        ),
      ),
      field(
        "Amount",
        input({ name: "amount", inputmode: "decimal", autocomplete: "off" }),
        "Leaves your balance; a manual payout is charged its chain's network fee out of it.",
      ),
      h(
        "div",
        { class: "field" },
        h("label", { for: "payout-destination" }, "Destination address"),
        destination,
        walletHint,
      ),
    ],
    "E-mail me a code",
    async (data) => {
      const amount = String(data.get("amount") ?? "").trim();
      if (!/^\d+(\.\d+)?$/.test(amount)) {
        const err = new Error("Enter the amount as a number, such as 25.50.");
        err.param = "amount";
        throw err;
      }
      const address = String(data.get("destination_address") ?? "").trim();
      const sent = await api("POST", "/payouts/request-otp", {
        chain: String(data.get("chain")),
        ...(address ? { destination_address: address } : {}),
        mode,
      });
      const pending = {
        chain: sent.chain,
        coin: String(data.get("coin_symbol")),
        amount,
        destination: sent.destination_address,
      };
      const fee = currentContext().balances.find((b) => b.chain === pending.chain)?.manual_payout_network_fee;
      step1.hidden = true;
      const change = h("button", { type: "button" }, "Change details");
      change.addEventListener("click", () => {
        step2.hidden = true;
        step1.hidden = false;
        step1.querySelector("select").focus();
      });
      step2.replaceChildren(
        h(
          "p",
          {},
          `We sent a code to ${sent.sent_to}. It confirms a ${mode === "test" ? "test-mode " : ""}payout of `,
          h("strong", {}, `${pending.amount} ${pending.coin}`),
          ` on ${chainName(pending.chain)} to `,
          h("code", {}, pending.destination),
          fee ? `, of which ${fee} ${pending.coin} is the network fee.` : ".",
        ),
        form(
          { "aria-label": "Confirm the payout" },
          [
            field(
              "Code",
              input({
                name: "otp",
                inputmode: "numeric",
                autocomplete: "one-time-code",
                pattern: "[0-9]{6}",
                maxlength: 6,
              }),
              "Valid 10 minutes, for this destination only.",
            ),
          ],
          "Pay out",
          async (confirm) => {
            let payout;
            try {
              payout = await api("POST", "/payouts", {
                chain: pending.chain,
                coin_symbol: pending.coin,
                amount: Number(pending.amount),
                destination_address: pending.destination,
                otp: String(confirm.get("otp")).trim(),
                mode,
              });
            } catch (err) {
              throw payoutError(err, pending, currentContext());
            }
            flash(`Payout of ${payout.amount} ${payout.coin} requested: ${payout.status}.`, "success");
            step2.hidden = true;
            step2.replaceChildren();
            step1.reset();
            step1.hidden = false;
            syncHint();
            await done();
          },
        ),
        h("div", { class: "actions" }, change),
      );
      step2.hidden = false;
      step2.querySelector('input[name="otp"]').focus();
    },
  );
  destination.id = "payout-destination";
  destination.setAttribute("aria-describedby", walletHint.id);
  syncHint();
  wrap.append(step1, step2);
  return wrap;
}

// ---------------------------------------------------------------------------------------------
// Payout schedule

function utcHour(hour) {
  return `${String(hour).padStart(2, "0")}:00 UTC`;
}

async function schedulePage() {
  const mode = modeFromHash();
  let schedule = null;
  try {
    schedule = await api("GET", `/payouts/schedule?mode=${mode}`);
  } catch (err) {
    if (err.status !== 404) throw err;
  }
  const { data: wallets } = await api("GET", "/payout-wallets");
  const current = schedule
    ? h(
        "dl",
        { class: "details" },
        [
          ["Status", schedule.enabled ? "On" : "Paused"],
          ["Time", `${utcHour(schedule.hour)} every day`],
          ["Minimum", `${schedule.minimum_amount} USDC/USDT`],
          ["Next run", schedule.next_run_at ? formatDate(schedule.next_run_at) : "—"],
          ["Last run", schedule.last_run_at ? formatDate(schedule.last_run_at) : "never"],
        ].map(([term, value]) => h("div", {}, h("dt", {}, term), h("dd", {}, value))),
      )
    : h("p", { class: "panel" }, `No ${mode} schedule yet: nothing is paid out automatically.`);
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
    current,
    form(
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
          input({ name: "minimum_amount", inputmode: "decimal", value: schedule?.minimum_amount ?? "0.00" }),
          "A coin's balance below this waits for the next day.",
        ),
      ],
      "Save schedule",
      async (data) => {
        const minimum = String(data.get("minimum_amount") ?? "").trim() || "0";
        if (!/^\d+(\.\d+)?$/.test(minimum)) {
          const err = new Error("Enter the minimum as a number, such as 10.");
          err.param = "minimum_amount";
          throw err;
        }
        const saved = await api("PUT", "/payouts/schedule", {
          hour: Number(data.get("hour")),
          enabled: enabled.checked,
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
    ),
  );
}

// ---------------------------------------------------------------------------------------------

window.addEventListener("hashchange", () => {
  route();
});
route();
