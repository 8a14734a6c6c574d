// The checkout's languages and their formats, without the message tables: the page's script
// imports this, and reads its one table from the page (`data-messages`), not from its bundle.

export const LANGUAGES = ["en", "es", "fr", "de", "pt", "ja"] as const;
export type Language = (typeof LANGUAGES)[number];

export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && (LANGUAGES as readonly string[]).includes(value);
}

export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}

/**
 * A decimal amount ("1234.50", any number of decimals) in the language's number format, exactly:
 * Intl formats the decimal string itself, never a float made from it.
 */
export function formatDecimal(language: Language, amount: string): string {
  const decimals = amount.split(".")[1]?.length ?? 0;
  const format = new Intl.NumberFormat(language, {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
  return format.format(amount as `${number}`);
}

/** "1.234,50 USD": an amount and its currency or coin. */
export function formatMoney(language: Language, amount: string, unit: string): string {
  return `${formatDecimal(language, amount)} ${unit}`;
}

/** The clock time of an instant, in the language's format and the viewer's time zone. */
export function formatClock(language: Language, at: Date, timeZone?: string): string {
  return new Intl.DateTimeFormat(language, {
    hour: "numeric",
    minute: "2-digit",
    ...(timeZone ? { timeZone } : {}),
  }).format(at);
}
