import { z } from "zod";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const PASSWORD_MIN = 10;
const PASSWORD_MAX = 256;

/** E-mail addresses are stored and compared lower-cased and trimmed. */
export const emailField = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .pipe(z.string().max(254).regex(EMAIL, "is not an e-mail address."))
  .meta({ description: "Compared lower-cased and trimmed." });

/** Only a type check at login: length rules apply when a password is chosen, not when tried. */
export const triedPassword = z.string().min(1).max(PASSWORD_MAX);

export const chosenPassword = z
  .string()
  .max(PASSWORD_MAX)
  .refine((value) => [...value].length >= PASSWORD_MIN, `must have at least ${PASSWORD_MIN} characters.`)
  .meta({ description: `At least ${PASSWORD_MIN} characters.` });

export const businessNameField = z
  .string()
  .transform((value) => value.trim())
  .pipe(z.string().min(1).max(100));

/** A code mailed to the merchant; any other text is a wrong try (and counted as one). */
export const mailedCode = z.string().min(1).meta({ description: "The 6-digit code from the e-mail." });
