// Sign-up, e-mail verification and login: the pages shown without a session.
import { ApiError, api } from "./api.js";
import { codeInput, field, flash, form, h, input, newPasswordField, show, text } from "./dom.js";
import { go } from "./navigation.js";
import { dropPendingEmail, pendingEmail, saveLoginStep, savePendingEmail, saveToken } from "./session.js";

export function signupPage(): void {
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
        newPasswordField(),
      ],
      "Sign up",
      async (data) => {
        const email = text(data, "email");
        await api("POST", "/auth/signup", {
          email,
          business_name: String(data.get("business_name")),
          password: String(data.get("password")),
        });
        savePendingEmail(email);
        flash(`We sent a 6-digit code to ${email}.`, "success");
        go("#/verify");
      },
    ),
    h("p", {}, "Already have an account? ", h("a", { href: "#/login" }, "Log in")),
  );
}

export function verifyPage(): void {
  show(
    "Verify your e-mail",
    h("p", {}, "Enter the 6-digit code we e-mailed you. It is valid for 10 minutes."),
    form(
      { "aria-label": "Verify e-mail" },
      [
        field(
          "E-mail",
          input({
            type: "email",
            name: "email",
            autocomplete: "email",
            value: pendingEmail(),
            required: true,
          }),
        ),
        field("Code", codeInput("code", { required: true })),
      ],
      "Verify",
      async (data) => {
        const address = text(data, "email");
        await api("POST", "/auth/verify-email", { email: address, code: text(data, "code") });
        savePendingEmail(address);
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

export function loginPage(): void {
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
            value: pendingEmail(),
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
          const answer = await api<{ token?: string; login_token?: string; methods?: string[] }>(
            "POST",
            "/auth/login",
            { email: text(data, "email"), password: String(data.get("password")) },
          );
          if (answer.login_token) {
            saveLoginStep({ login_token: answer.login_token, methods: answer.methods ?? [] });
            go("#/login-2fa");
            return;
          }
          saveToken(answer.token!);
        } catch (err) {
          if (err instanceof ApiError && err.code === "email_not_verified") {
            savePendingEmail(text(data, "email"));
            flash("Verify your e-mail first: enter the code we sent you.", "error");
            go("#/verify");
            return;
          }
          throw err;
        }
        dropPendingEmail();
        flash("");
        go("#/payments");
      },
    ),
    h("p", {}, "New here? ", h("a", { href: "#/signup" }, "Create an account")),
    h("p", {}, "Invited to a team? ", h("a", { href: "#/accept" }, "Accept an invitation")),
  );
}
