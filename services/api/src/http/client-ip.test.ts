import type { Request } from "express";
import { describe, expect, it } from "vitest";
import { createClientIp } from "./client-ip.js";

const req = (peer: string, xff?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: xff === undefined ? {} : { "x-forwarded-for": xff },
  }) as unknown as Request;

describe("client IP", () => {
  it("ignores X-Forwarded-For from an untrusted peer", () => {
    const ip = createClientIp(["10.0.0.1"]);
    expect(ip(req("203.0.113.9", "1.2.3.4"))).toBe("203.0.113.9");
  });

  it("takes the rightmost untrusted hop behind trusted proxies", () => {
    const ip = createClientIp(["10.0.0.1", "10.0.0.2"]);
    // The client forged the first entry; the proxies appended the real one.
    expect(ip(req("::ffff:10.0.0.1", "6.6.6.6, 198.51.100.7, 10.0.0.2"))).toBe("198.51.100.7");
  });

  it("falls back to the peer when the header holds nothing usable", () => {
    const ip = createClientIp(["10.0.0.1"]);
    expect(ip(req("10.0.0.1", "garbage"))).toBe("10.0.0.1");
    expect(ip(req("10.0.0.1"))).toBe("10.0.0.1");
  });
});
