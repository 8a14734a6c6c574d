import { describe, expect, it } from "vitest";
import { formatClock, formatDecimal, LANGUAGES, MESSAGES, pickLanguage, translate } from "./index.js";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("the checkout's message tables", () => {
  const keys = Object.keys(MESSAGES.en).sort();

  it.each(LANGUAGES)(
    "%s has every key of English, no other, none empty, with the same placeholders",
    (language) => {
      const table = MESSAGES[language];
      expect(Object.keys(table).sort()).toEqual(keys);
      for (const key of keys) {
        const text = table[key as keyof typeof table];
        expect(text.trim(), `${language}.${key}`).not.toBe("");
        expect(placeholders(text), `${language}.${key}`).toEqual(
          placeholders(MESSAGES.en[key as keyof typeof table]),
        );
      }
    },
  );

  it("is translated, not copied: most strings differ from English", () => {
    for (const language of LANGUAGES.filter((l) => l !== "en")) {
      const same = keys.filter((k) => MESSAGES[language][k as never] === MESSAGES.en[k as never]);
      expect(same.length, `${language}: ${same.join(", ")}`).toBeLessThan(keys.length / 10);
    }
  });
});

describe("pickLanguage", () => {
  it.each([
    [undefined, undefined, "en"],
    [undefined, "fr-CH, fr;q=0.9, en;q=0.8", "fr"],
    [undefined, "zh-CN, de;q=0.5, ja;q=0.7", "ja"],
    [undefined, "pt-BR", "pt"],
    [undefined, "xx, *;q=0.1", "en"],
    [undefined, "es;q=0, de", "de"],
    ["ja", "es", "ja"],
    ["DE", undefined, "de"],
    ["klingon", "es", "es"],
    [["es"], "fr", "fr"],
  ])("?lang=%s with Accept-Language %s → %s", (query, header, expected) => {
    expect(pickLanguage(query, header)).toBe(expected);
  });
});

describe("formatting", () => {
  it("formats decimal amounts exactly, in each language's way", () => {
    expect(formatDecimal("en", "1234.50")).toBe("1,234.50");
    expect(formatDecimal("de", "1234.50")).toBe("1.234,50");
    expect(formatDecimal("fr", "1234.50")).toBe("1\u202f234,50");
    expect(formatDecimal("ja", "0.076970444")).toBe("0.076970444");
    // Past a float's precision: still every digit.
    expect(formatDecimal("en", "123456789012.123456789")).toBe("123,456,789,012.123456789");
    expect(formatDecimal("pt", "12.50")).toBe("12,50");
  });

  it("formats clock times per language", () => {
    const at = new Date("2026-11-29T14:05:00Z");
    // ICU versions differ in the space before PM.
    expect(formatClock("en", at, "UTC")).toMatch(/^2:05\sPM$/);
    expect(formatClock("de", at, "UTC")).toBe("14:05");
    expect(formatClock("ja", at, "UTC")).toBe("14:05");
  });

  it("fills placeholders", () => {
    expect(translate("es", "addressReady", { amount: "12,50 USDC" })).toBe(
      "Dirección de depósito lista: envía 12,50 USDC.",
    );
  });
});
