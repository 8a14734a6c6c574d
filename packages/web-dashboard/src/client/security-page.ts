// The signed-in member's own security: the authenticator app, passkeys, sessions, password.
import { startRegistration } from "@simplewebauthn/browser";
import { api } from "./api.js";
import { codeInput, errorMessage, field, flash, form, h, input, listTable, show, text } from "./dom.js";
import { formatDate } from "./labels.js";
import type {
  List,
  Merchant,
  Passkey,
  RecoveryCodes,
  RegisteredPasskey,
  SessionRow,
  TotpSetup,
} from "./types.js";

const SVG = "http://www.w3.org/2000/svg";

/** The QR code from its rows of modules ("1" dark), drawn as SVG so no markup comes from the server. */
function qrCode(rows: string[]): SVGSVGElement {
  const size = rows.length + 2;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.setAttribute("width", "200");
  svg.setAttribute("height", "200");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "QR code for your authenticator app");
  const background = document.createElementNS(SVG, "rect");
  for (const [k, v] of [
    ["width", size],
    ["height", size],
    ["fill", "#fff"],
  ] as const)
    background.setAttribute(k, String(v));
  let d = "";
  rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) if (row[x] === "1") d += `M${x + 1} ${y + 1}h1v1h-1z`;
  });
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", d);
  path.setAttribute("fill", "#000");
  svg.append(background, path);
  return svg;
}

function recoveryCodes(codes: string[]): HTMLElement {
  return h(
    "section",
    { class: "reveal", "aria-labelledby": "recovery-title" },
    h("h2", { id: "recovery-title" }, "Your recovery codes"),
    h(
      "p",
      { class: "warning" },
      h("strong", {}, "Save these now. "),
      "Each works once, if you lose your phone.",
    ),
    h(
      "ul",
      { class: "recovery-codes" },
      codes.map((c) => h("li", {}, h("code", {}, c))),
    ),
  );
}

function totpSection(me: Merchant): HTMLElement {
  const section = h(
    "section",
    { class: "panel", "aria-labelledby": "totp-title" },
    h("h2", { id: "totp-title" }, "Authenticator app"),
  );
  if (me.member.totp) {
    section.append(
      h("p", {}, "On. Logging in asks for a code from the app."),
      form(
        { "aria-label": "Turn off the authenticator app" },
        [field("Code or recovery code", input({ name: "code", autocomplete: "one-time-code" }))],
        "Turn off",
        async (data) => {
          await api("POST", "/auth/2fa/disable", { code: text(data, "code") });
          flash("The authenticator app is off.", "success");
          await securityPage();
        },
      ),
    );
    return section;
  }
  const start = h("button", { type: "button", class: "primary" }, "Set up an authenticator app");
  start.addEventListener("click", async () => {
    try {
      const setup = await api<TotpSetup>("POST", "/auth/2fa/setup", {});
      start.replaceWith(
        h("p", {}, "Scan this code with your app, or type the secret in it:"),
        qrCode(setup.qr_modules),
        h("p", {}, "Secret: ", h("code", { class: "totp-secret" }, setup.secret)),
        form(
          { "aria-label": "Confirm the authenticator app" },
          [field("Code from the app", codeInput("code", { required: true }))],
          "Turn on",
          async (data) => {
            const { recovery_codes: codes } = await api<RecoveryCodes>("POST", "/auth/2fa/enable", {
              code: text(data, "code"),
            });
            flash("The authenticator app is on.", "success");
            await securityPage(recoveryCodes(codes));
          },
        ),
      );
    } catch (err) {
      flash(errorMessage(err), "error");
    }
  });
  section.append(
    h("p", {}, "Off. Add a second step to your login with an app such as Google Authenticator or 1Password."),
    start,
  );
  return section;
}

async function passkeySection(): Promise<HTMLElement> {
  const { data } = await api<List<Passkey>>("GET", "/auth/passkeys");
  const rows = data.map((p) => {
    const remove = h("button", { type: "button", class: "danger" }, "Remove");
    remove.setAttribute("aria-label", `Remove passkey ${p.name}`);
    remove.addEventListener("click", async () => {
      const code = window.prompt("Enter a code from your authenticator app, or a recovery code.") ?? "";
      try {
        await api("DELETE", `/auth/passkeys/${encodeURIComponent(p.id)}`, { code });
        await securityPage();
      } catch (err) {
        flash(errorMessage(err), "error");
      }
    });
    return [
      ["Name", p.name],
      ["Added", formatDate(p.created_at)],
      ["Last used", p.last_used_at ? formatDate(p.last_used_at) : "never"],
      [null, remove],
    ] as [string | null, Node | string][];
  });
  return h(
    "section",
    { class: "panel", "aria-labelledby": "passkeys-title" },
    h("h2", { id: "passkeys-title" }, "Passkeys and security keys"),
    data.length ? listTable("Passkeys", ["Name", "Added", "Last used", ""], rows) : h("p", {}, "None yet."),
    form(
      { "aria-label": "Add a passkey" },
      [
        field(
          "Name",
          input({ name: "name", required: true, maxlength: 64, placeholder: "YubiKey, MacBook…" }),
        ),
      ],
      "Add a passkey",
      async (form) => {
        const options = await api<Parameters<typeof startRegistration>[0]["optionsJSON"]>(
          "POST",
          "/auth/passkeys/register/options",
          {},
        );
        const response = await startRegistration({ optionsJSON: options });
        const added = await api<RegisteredPasskey>("POST", "/auth/passkeys/register", {
          response,
          name: text(form, "name"),
        });
        flash("Passkey added.", "success");
        await securityPage(added.recovery_codes ? recoveryCodes(added.recovery_codes) : undefined);
      },
    ),
  );
}

async function sessionSection(): Promise<HTMLElement> {
  const { data } = await api<List<SessionRow>>("GET", "/sessions");
  const rows = data.map((s) => {
    const end = h("button", { type: "button", class: "danger" }, "Sign out");
    end.addEventListener("click", async () => {
      await api("DELETE", `/sessions/${encodeURIComponent(s.id)}`).catch((err) =>
        flash(errorMessage(err), "error"),
      );
      await securityPage();
    });
    return [
      ["Device", s.user_agent || "unknown"],
      ["Address", s.ip],
      ["Last seen", formatDate(s.last_seen_at)],
      [null, s.current ? "this session" : end],
    ] as [string | null, Node | string][];
  });
  return h(
    "section",
    { class: "panel", "aria-labelledby": "sessions-title" },
    h("h2", { id: "sessions-title" }, "Sessions"),
    listTable("Sessions", ["Device", "Address", "Last seen", ""], rows),
  );
}

function passwordSection(): HTMLElement {
  return h(
    "section",
    { class: "panel", "aria-labelledby": "password-title" },
    h("h2", { id: "password-title" }, "Password"),
    form(
      { "aria-label": "Change password" },
      [
        field(
          "Current password",
          input({ type: "password", name: "current_password", autocomplete: "current-password" }),
        ),
        field(
          "New password",
          input({ type: "password", name: "new_password", autocomplete: "new-password", minlength: 10 }),
          "At least 10 characters. Your other sessions end.",
        ),
      ],
      "Change password",
      async (data) => {
        await api("POST", "/auth/password", {
          current_password: String(data.get("current_password")),
          new_password: String(data.get("new_password")),
        });
        flash("Password changed; your other sessions are signed out.", "success");
        await securityPage();
      },
    ),
  );
}

export async function securityPage(notice?: HTMLElement): Promise<void> {
  const me = await api<Merchant>("GET", "/auth/me");
  const required = me.member.second_factor_setup_required
    ? h(
        "p",
        { class: "warning" },
        "Your team requires two-factor login: set up an authenticator app or a passkey to continue.",
      )
    : null;
  show(
    "Security",
    required,
    notice ?? null,
    totpSection(me),
    await passkeySection(),
    await sessionSection(),
    passwordSection(),
  );
}
