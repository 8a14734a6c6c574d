import { GatewayError } from "@gateway/errors";
import { required } from "../../http/params.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const PASSWORD_MIN = 10;
const PASSWORD_MAX = 256;

/** E-mail addresses are stored and compared lower-cased and trimmed. */
export function emailField(body: Record<string, unknown>): string {
  const value = required<unknown>(body, "email");
  if (typeof value !== "string") throw new GatewayError("parameter_invalid", { param: "email" });
  const email = value.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) {
    throw new GatewayError("parameter_invalid", {
      param: "email",
      message: "email is not an e-mail address.",
    });
  }
  return email;
}

/** Only a type check at login: length rules apply when a password is chosen, not when tried. */
export function passwordField(body: Record<string, unknown>, { choosing }: { choosing: boolean }): string {
  const value = required<unknown>(body, "password");
  if (typeof value !== "string" || value.length > PASSWORD_MAX) {
    throw new GatewayError("parameter_invalid", { param: "password" });
  }
  if (choosing && [...value].length < PASSWORD_MIN) {
    throw new GatewayError("parameter_invalid", {
      param: "password",
      message: `password must have at least ${PASSWORD_MIN} characters.`,
    });
  }
  return value;
}

export function businessNameField(body: Record<string, unknown>): string {
  const value = required<unknown>(body, "business_name");
  const name = typeof value === "string" ? value.trim() : "";
  if (name.length === 0 || name.length > 100) {
    throw new GatewayError("parameter_invalid", {
      param: "business_name",
      message: "business_name must be 1 to 100 characters.",
    });
  }
  return name;
}
