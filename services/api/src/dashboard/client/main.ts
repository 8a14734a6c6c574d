// The merchant dashboard: a small single-page app over the JSON API of the same host, one
// module per page. This entry draws the page the URL hash names, and the navigation around it.
import { api } from "./api.js";
import { loginPage, signupPage, verifyPage } from "./auth-pages.js";
import { clearStaleFlash, errorMessage, flash, h, show } from "./dom.js";
import { exportsPage } from "./exports-page.js";
import { homePage } from "./home-page.js";
import { keysPage } from "./keys-page.js";
import { go } from "./navigation.js";
import { paymentsPage } from "./payments-page.js";
import { payoutsPage } from "./payouts-page.js";
import { schedulePage } from "./schedule-page.js";
import { searchPage } from "./search-page.js";
import { dropToken, token } from "./session.js";
import type { Merchant } from "./types.js";
import { walletsPage } from "./wallets-page.js";
import { webhooksPage } from "./webhooks-page.js";

interface Page {
  path: string;
  title: string;
  /** Draws the page; the hash's further segments (`#/payments/<id>`) are its arguments. */
  render: (...segments: string[]) => Promise<void>;
}

/**
 * The signed-in pages, in navigation order. A feature adds its page by adding an entry here
 * (and its JSON under /dashboard/api or its own routes): the nav is drawn from this list.
 */
const PAGES: Page[] = [
  { path: "home", title: "Home", render: homePage },
  { path: "payments", title: "Payments", render: paymentsPage },
  { path: "search", title: "Search", render: searchPage },
  { path: "keys", title: "API keys", render: keysPage },
  { path: "wallets", title: "Payout wallets", render: walletsPage },
  { path: "webhooks", title: "Webhooks", render: webhooksPage },
  { path: "payouts", title: "Balances & payouts", render: payoutsPage },
  { path: "schedule", title: "Payout schedule", render: schedulePage },
  { path: "exports", title: "Exports", render: exportsPage },
];

const PUBLIC_PAGES = new Map<string, () => void>([
  ["login", loginPage],
  ["signup", signupPage],
  ["verify", verifyPage],
]);

let me: Merchant | null = null;

async function route(): Promise<void> {
  clearStaleFlash();
  const [path = "", ...rest] = location.hash.replace(/^#\/?/, "").split("?")[0]!.split("/");
  const publicPage = PUBLIC_PAGES.get(path);
  if (publicPage) {
    me = null;
    drawChrome(null);
    return publicPage();
  }
  if (!token()) return go("#/login");
  try {
    me ??= await api<Merchant>("GET", "/auth/me");
  } catch {
    return;
  }
  const page = PAGES.find((p) => p.path === path);
  if (!page) return go("#/home");
  drawChrome(page.path);
  try {
    await page.render(...rest.map(decodeURIComponent));
  } catch (err) {
    if ((err as { status?: unknown }).status !== 401)
      show("Something went wrong", h("p", { class: "panel" }, errorMessage(err)));
  }
}

function drawChrome(current: string | null): void {
  const nav = document.getElementById("nav")!;
  const account = document.getElementById("account")!;
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
          dropToken();
          me = null;
          flash("You are logged out.");
          go("#/login");
        },
      },
      "Log out",
    ),
  );
}

window.addEventListener("hashchange", () => {
  void route();
});
void route();
