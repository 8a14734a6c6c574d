// The page's language and its message table, both chosen by the server and written on the page
// (`<html lang>`, `data-messages` on <main>): the bundle carries no table of its own.
import type { MessageKey, Messages } from "../i18n/en.js";
import { fill, formatClock, formatMoney, isLanguage, type Language } from "../i18n/languages.js";
import { root } from "./elements.js";

const declared = document.documentElement.lang;
export const language: Language = isLanguage(declared) ? declared : "en";

const messages = JSON.parse(root.dataset.messages ?? "{}") as Partial<Messages>;

/** A missing key shows as itself rather than breaking the page (messages.test.ts keeps them complete). */
export const t = (key: MessageKey, values: Record<string, string | number> = {}) =>
  fill(messages[key] ?? key, values);

/** An amount for reading ("1.234,50 USDC"); what the customer copies stays the plain decimal. */
export const money = (amount: string, unit: string) => formatMoney(language, amount, unit);

export const clock = (at: Date) => formatClock(language, at);
