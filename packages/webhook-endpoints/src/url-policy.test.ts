import { GatewayError } from "@gateway/errors";
import { describe, expect, it } from "vitest";
import { isForbiddenAddress, parseWebhookUrl, resolveWebhookTarget } from "./url-policy.js";

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return `${(err as GatewayError).code}:${(err as GatewayError).param}`;
  }
  throw new Error("expected a GatewayError");
}

describe("isForbiddenAddress", () => {
  it.each([
    "0.0.0.0",
    "10.1.2.3",
    "100.64.0.1",
    "127.0.0.1",
    "127.255.0.9",
    "169.254.169.254",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "198.18.0.1",
    "224.0.0.1",
    "239.255.255.250",
    "255.255.255.255",
    "::",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "64:ff9b::a00:1",
    "2002:a00:1::",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "ff02::1",
    "not-an-ip",
  ])("refuses %s", (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001::200e",
  ])("allows %s", (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe("webhook URL policy", () => {
  const live = { mode: "live" as const, allowPrivate: false };
  const test = { mode: "test" as const, allowPrivate: false };
  const dev = { mode: "live" as const, allowPrivate: true };

  it("requires https for live endpoints, http allowed for test ones", async () => {
    expect(await refusal(resolveWebhookTarget("http://8.8.8.8/hook", live))).toBe("url_invalid:url");
    expect((await resolveWebhookTarget("http://8.8.8.8/hook", test)).address).toBe("8.8.8.8");
    expect((await resolveWebhookTarget("https://8.8.8.8/hook", live)).address).toBe("8.8.8.8");
  });

  it("refuses credentials, fragments, other schemes and junk", () => {
    for (const url of [
      "ftp://8.8.8.8/",
      "https://user:pw@8.8.8.8/",
      "https://8.8.8.8/#x",
      "not a url",
      "",
      42,
      `https://8.8.8.8/${"a".repeat(2100)}`,
    ]) {
      expect(() => parseWebhookUrl(url, live)).toThrow(GatewayError);
    }
  });

  it("refuses names and literals that reach private networks, however they are written", async () => {
    for (const url of [
      "https://127.0.0.1/",
      "https://localhost/",
      "https://[::1]/",
      "https://[::ffff:7f00:1]/",
      "https://2130706433/", // 127.0.0.1 as one decimal number
      "https://0x7f.1/",
      "https://169.254.169.254/latest/meta-data",
      "http://10.0.0.5:8080/",
    ]) {
      expect(await refusal(resolveWebhookTarget(url, test)), url).toBe("url_forbidden:url");
    }
  });

  it("allows loopback (and http for it, even live) only when the operator allows private addresses", async () => {
    expect((await resolveWebhookTarget("http://127.0.0.1:3000/hook", dev)).address).toBe("127.0.0.1");
    expect((await resolveWebhookTarget("http://localhost:3000/hook", dev)).url.port).toBe("3000");
    // Private but not loopback: https is still required live.
    expect(await refusal(resolveWebhookTarget("http://10.0.0.5/hook", dev))).toBe("url_invalid:url");
  });

  it("refuses a host that does not resolve", async () => {
    expect(await refusal(resolveWebhookTarget("https://no-such-host.invalid/hook", live))).toBe(
      "url_invalid:url",
    );
  });
});
