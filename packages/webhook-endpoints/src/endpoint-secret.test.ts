import { describe, expect, it } from "vitest";
import { generateEndpointSecret, openSecret, parseSecretKey, sealSecret } from "./endpoint-secret.js";

describe("endpoint secrets", () => {
  const key = parseSecretKey(Buffer.alloc(32, 1).toString("base64"));

  it("are whsec_ + 40 base62 characters, sealed per endpoint", () => {
    const secret = generateEndpointSecret();
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    const sealed = sealSecret(key, "whk_a", secret);
    expect(sealed.includes(Buffer.from(secret))).toBe(false);
    expect(openSecret(key, "whk_a", sealed)).toBe(secret);
    // Moved to another endpoint's row, altered, or opened with another key: refused.
    expect(() => openSecret(key, "whk_b", sealed)).toThrow();
    const altered = Buffer.from(sealed);
    altered[15]! ^= 1;
    expect(() => openSecret(key, "whk_a", altered)).toThrow();
    expect(() =>
      openSecret(parseSecretKey(Buffer.alloc(32, 2).toString("base64")), "whk_a", sealed),
    ).toThrow();
  });
});
