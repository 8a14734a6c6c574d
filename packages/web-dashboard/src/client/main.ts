// The merchant dashboard: a small single-page app over the JSON API of the same host, one
// module per page. This entry draws the page the URL hash names, and the navigation around it.
import { api } from "./api.js";
import { auditPage } from "./audit-page.js";
import { loginPage, signupPage, verifyPage } from "./auth-pages.js";
import { clearStaleFlash, errorMessage, flash, h, show } from "./dom.js";
import { exportsPage } from "./exports-page.js";
import { homePage } from "./home-page.js";
import { keysPage } from "./keys-page.js";
import { acceptInvitationPage, secondStepPage } from "./login-steps.js";
import { go } from "./navigation.js";
import { paymentLinksPage } from "./payment-links-page.js";
import { paymentsPage } from "./payments-page.js";
import { payoutsPage } from "./payouts-page.js";
import { can, setMember } from "./permissions.js";
import { schedulePage } from "./schedule-page.js";
import { searchPage } from "./search-page.js";
import { securityPage } from "./security-page.js";
import { dropToken, sessionId, token } from "./session.js";
import { teamPage } from "./team-page.js";
import type { Merchant } from "./types.js";
import { walletsPage } from "./wallets-page.js";
import { webhooksPage } from "./webhooks-page.js";

interface Page {
  path: string;
  title: string;
  /** Draws the page; the hash's further segments (`#/payments/<id>`) are its arguments. */
  render: (...segments: string[]) => Promise<void>;
  /** The route the page reads first: a role that may not call it does not see the page. */
  needs: string;
}

/**
 * The signed-in pages, in navigation order. A feature adds its page by adding an entry here
 * (and its JSON under /dashboard/api or its own routes): the nav is drawn from this list.
 */
const PAGES: Page[] = [
  { path: "home", title: "Home", render: homePage, needs: "GET /dashboard/api/overview" },
  { path: "payments", title: "Payments", render: paymentsPage, needs: "GET /dashboard/api/payments" },
  {
    path: "payment-links",
    title: "Payment links",
    render: paymentLinksPage,
    needs: "GET /dashboard/api/payment-links",
  },
  { path: "search", title: "Search", render: searchPage, needs: "GET /dashboard/api/search" },
  { path: "keys", title: "API keys", render: keysPage, needs: "GET /api-keys" },
  { path: "wallets", title: "Payout wallets", render: walletsPage, needs: "GET /payout-wallets" },
  { path: "webhooks", title: "Webhooks", render: webhooksPage, needs: "GET /dashboard/api/webhooks" },
  { path: "payouts", title: "Balances & payouts", render: payoutsPage, needs: "GET /payouts" },
  { path: "schedule", title: "Payout schedule", render: schedulePage, needs: "GET /payouts/schedule" },
  { path: "exports", title: "Exports", render: exportsPage, needs: "GET /exports/payments.csv" },
  { path: "team", title: "Team", render: teamPage, needs: "GET /team" },
  { path: "audit", title: "Audit log", render: auditPage, needs: "GET /audit-log" },
  { path: "security", title: "Security", render: () => securityPage(), needs: "GET /auth/me" },
];

/** The pages the member's role may open. */
const visiblePages = () => PAGES.filter((p) => can(p.needs));

const PUBLIC_PAGES = new Map<string, () => void>([
  ["login", loginPage],
  ["signup", signupPage],
  ["verify", verifyPage],
  ["login-2fa", secondStepPage],
  ["accept", acceptInvitationPage],
]);

let me: Merchant | null = null;

async function route(): Promise<void> {
  clearStaleFlash();
  const [path = "", ...rest] = location.hash.replace(/^#\/?/, "").split("?")[0]!.split("/");
  const publicPage = PUBLIC_PAGES.get(path);
  if (publicPage) {
    me = null;
    setMember(null);
    drawChrome(null);
    return publicPage();
  }
  if (!token()) return go("#/login");
  try {
    // Read again on each navigation: a role or the team's 2FA rule may have changed.
    me = await api<Merchant>("GET", "/auth/me");
    setMember(me);
  } catch {
    return;
  }
  // A team that requires 2FA sends a member without it to set it up before anything else.
  if (me.member.second_factor_setup_required && path !== "security") return go("#/security");
  const page = visiblePages().find((p) => p.path === path);
  if (!page) return go(`#/${visiblePages()[0]?.path ?? "security"}`);
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
      (me.member.second_factor_setup_required ? [] : visiblePages()).map((page) =>
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
    h("span", { class: "who", title: `${me.member.email} (${me.member.role})` }, me.business_name),
    h(
      "button",
      {
        type: "button",
        class: "link",
        onclick: async () => {
          const sid = sessionId();
          // Ends the session on the server too: a copied token stops working.
          if (sid) await api("DELETE", `/sessions/${encodeURIComponent(sid)}`).catch(() => undefined);
          dropToken();
          setMember(null);
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
