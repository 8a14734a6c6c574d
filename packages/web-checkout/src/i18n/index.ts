// The checkout's languages: which one a request gets, its message table, and numbers and times
// in its format (languages.ts, which the page's script shares).
import { de } from "./de.js";
import { en, type MessageKey, type Messages } from "./en.js";
import { es } from "./es.js";
import { fr } from "./fr.js";
import { ja } from "./ja.js";
import { fill, isLanguage, type Language } from "./languages.js";
import { pt } from "./pt.js";

export type { MessageKey, Messages } from "./en.js";
export * from "./languages.js";

export const MESSAGES: Readonly<Record<Language, Messages>> = { en, es, fr, de, pt, ja };

/**
 * `?lang=` when it names one of ours, else the first of Accept-Language's ranges (by quality,
 * then order) whose primary subtag is one of ours, else English.
 */
export function pickLanguage(query: unknown, acceptLanguage: string | undefined): Language {
  if (typeof query === "string" && isLanguage(query.toLowerCase())) return query.toLowerCase() as Language;
  const ranges = (acceptLanguage ?? "")
    .split(",")
    .slice(0, 32)
    .map((part, order) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return {
        primary: tag.trim().toLowerCase().split("-")[0] ?? "",
        q: q === undefined ? 1 : Number(q),
        order,
      };
    })
    .filter((r) => r.q > 0 && isLanguage(r.primary))
    .sort((a, b) => b.q - a.q || a.order - b.order);
  return (ranges[0]?.primary as Language | undefined) ?? "en";
}

/** A message with its `{name}`s filled in. */
export function translate(
  language: Language,
  key: MessageKey,
  values: Record<string, string | number> = {},
): string {
  return fill(MESSAGES[language][key], values);
}
