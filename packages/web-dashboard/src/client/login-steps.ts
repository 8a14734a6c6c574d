// The second login step (a code from the authenticator app, a recovery code, or a passkey) and
// accepting an invitation: pages shown without a session.
import { startAuthentication } from "@simplewebauthn/browser";
import { api } from "./api.js";
import {
  codeInput,
  errorMessage,
  field,
  flash,
  form,
  h,
  input,
  newPasswordField,
  show,
  text,
} from "./dom.js";
import { go } from "./navigation.js";
import { dropLoginStep, dropPendingEmail, loginStep, saveToken } from "./session.js";
import type { Token } from "./types.js";

function signedIn(token: string): void {
  saveToken(token);
  dropLoginStep();
  dropPendingEmail();
  flash("");
  go("#/payments");
}

export function secondStepPage(): void {
  const step = loginStep();
  if (!step) {
    go("#/login");
    return;
  }
  const codeForm = form(
    { "aria-label": "Two-factor code" },
    [
      field(
        "Code",
        input({ name: "code", autocomplete: "one-time-code", required: true, maxlength: 64 }),
        "The 6-digit code from your authenticator app, or one of your recovery codes.",
      ),
    ],
    "Continue",
    async (data) => {
      const { token } = await api<Token>("POST", "/auth/login/2fa", {
        login_token: step.login_token,
        code: text(data, "code"),
      });
      signedIn(token);
    },
  );
  const passkey = h("button", { type: "button", class: "primary" }, "Use a passkey");
  passkey.addEventListener("click", async () => {
    passkey.disabled = true;
    try {
      const options = await api<Parameters<typeof startAuthentication>[0]["optionsJSON"]>(
        "POST",
        "/auth/login/passkey/options",
        { login_token: step.login_token },
      );
      const response = await startAuthentication({ optionsJSON: options });
      const { token } = await api<Token>("POST", "/auth/login/passkey", {
        login_token: step.login_token,
        response,
      });
      signedIn(token);
    } catch (err) {
      flash(errorMessage(err), "error");
    } finally {
      passkey.disabled = false;
    }
  });
  const hasCode = step.methods.includes("totp") || step.methods.includes("recovery_code");
  show(
    "Two-factor login",
    step.methods.includes("passkey") ? h("div", { class: "actions" }, passkey) : [],
    hasCode ? codeForm : [],
    h("p", {}, h("a", { href: "#/login" }, "Start again")),
  );
}

export function acceptInvitationPage(): void {
  show(
    "Accept an invitation",
    h(
      "p",
      {},
      "Enter the address you were invited at, the 6-digit code from the invitation, and a password.",
    ),
    form(
      { "aria-label": "Accept invitation" },
      [
        field("E-mail", input({ type: "email", name: "email", autocomplete: "username", required: true })),
        field("Invitation code", codeInput("code", { required: true })),
        newPasswordField(),
      ],
      "Join the team",
      async (data) => {
        const { token } = await api<Token>("POST", "/auth/accept-invitation", {
          email: text(data, "email"),
          code: text(data, "code"),
          password: String(data.get("password")),
        });
        signedIn(token);
      },
    ),
  );
}
