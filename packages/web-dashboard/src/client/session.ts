// The session JWT lives in sessionStorage, so it ends with the tab; the e-mail being verified
// waits there between the sign-up, verify and login pages.

const TOKEN_KEY = "gateway.session";
const EMAIL_KEY = "gateway.pendingEmail";

/** The session token while it is readable and unexpired; otherwise none, and it is dropped. */
export function token(): string | null {
  const value = sessionStorage.getItem(TOKEN_KEY);
  if (!value) return null;
  try {
    const body = value.split(".")[1] ?? "";
    const payload = JSON.parse(atob(body.replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: unknown };
    if (typeof payload.exp === "number" && payload.exp * 1000 > Date.now()) return value;
  } catch {
    // A token we cannot read is as good as none.
  }
  sessionStorage.removeItem(TOKEN_KEY);
  return null;
}

export function saveToken(value: string): void {
  sessionStorage.setItem(TOKEN_KEY, value);
}

export function dropToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

export function pendingEmail(): string {
  return sessionStorage.getItem(EMAIL_KEY) ?? "";
}

export function savePendingEmail(email: string): void {
  sessionStorage.setItem(EMAIL_KEY, email);
}

export function dropPendingEmail(): void {
  sessionStorage.removeItem(EMAIL_KEY);
}

const LOGIN_KEY = "gateway.loginStep";

/** The session id the token names (its `sid` claim): logging out revokes it on the server. */
export function sessionId(): string | null {
  const value = token();
  if (!value) return null;
  try {
    const payload = JSON.parse(atob((value.split(".")[1] ?? "").replace(/-/g, "+").replace(/_/g, "/"))) as {
      sid?: unknown;
    };
    return typeof payload.sid === "string" ? payload.sid : null;
  } catch {
    return null;
  }
}

/** The first login step's answer, kept for the second step's page. */
export interface LoginStep {
  login_token: string;
  methods: string[];
}

export function saveLoginStep(step: LoginStep): void {
  sessionStorage.setItem(LOGIN_KEY, JSON.stringify(step));
}

export function loginStep(): LoginStep | null {
  try {
    return JSON.parse(sessionStorage.getItem(LOGIN_KEY) ?? "null") as LoginStep | null;
  } catch {
    return null;
  }
}

export function dropLoginStep(): void {
  sessionStorage.removeItem(LOGIN_KEY);
}
