// SSRF: with ALLOW_PRIVATE_WEBHOOKS=false no webhook endpoint may point at our own networks,
// however the address is spelled: private, loopback, link-local (cloud metadata), IPv6 loopback,
// unique-local and IPv4-mapped forms, the unspecified address, decimal/hex/octal/short IPv4,
// names that resolve to such addresses, and redirects to them.
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  call,
  createTestMerchant,
  startTestApi,
  type TestApi,
  type TestMerchant,
} from "@gateway/api/testing";
import { createWebhookHttpClient } from "@gateway/notifier";
import { isForbiddenAddress, resolveWebhookTarget } from "@gateway/webhook-endpoints";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const FORBIDDEN_URLS = [
  "https://127.0.0.1/hook",
  "https://127.255.255.254/hook",
  "https://10.0.0.1/hook",
  "https://172.16.5.4/hook",
  "https://192.168.1.1/hook",
  "https://100.64.0.1/hook",
  "https://169.254.169.254/latest/meta-data/",
  "https://[::1]/hook",
  "https://[::]/hook",
  "https://[fc00::1]/hook",
  "https://[fd12:3456::1]/hook",
  "https://[fe80::1]/hook",
  "https://[::ffff:127.0.0.1]/hook",
  "https://[::ffff:7f00:1]/hook",
  "https://[::ffff:169.254.169.254]/hook",
  "https://[64:ff9b::a9fe:a9fe]/hook",
  "https://[2002:7f00:1::]/hook",
  "https://0.0.0.0/hook",
  "https://0/hook",
  "https://2130706433/hook", // 127.0.0.1 in decimal
  "https://0x7f000001/hook", // in hex
  "https://0x7f.0.0.1/hook",
  "https://017700000001/hook", // in octal
  "https://0177.0.0.1/hook",
  "https://127.1/hook",
  "https://2852039166/hook", // 169.254.169.254 in decimal
  "https://0xa9fea9fe/hook",
  "https://localhost/hook", // a name that resolves to loopback
  "https://localhost./hook",
  "https://LOCALHOST/hook",
];

let api: TestApi;
let merchant: TestMerchant;
beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_WEBHOOKS: "false" });
  merchant = await createTestMerchant(api.db.sql);
});
afterAll(() => api?.close());

describe("SSRF through webhook URLs", () => {
  it("the API refuses every private target for live and test endpoints, with url_forbidden", async () => {
    const accepted: string[] = [];
    for (const url of FORBIDDEN_URLS) {
      for (const key of [merchant.liveKey, merchant.testKey]) {
        const res = await call(api.baseUrl, "POST", "/webhooks", {
          headers: { "x-api-key": key },
          body: { url },
        });
        if (res.status !== 400 || !["url_forbidden", "url_invalid"].includes(res.body.error?.code)) {
          accepted.push(`${url} ${key.slice(0, 8)} → ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
    expect(accepted).toEqual([]);
    const listed = await call(api.baseUrl, "GET", "/webhooks", {
      headers: { "x-api-key": merchant.liveKey },
    });
    expect(listed.body.data).toEqual([]);
  });

  it("the resolver-level guard refuses them too, as used before every delivery attempt", async () => {
    for (const url of FORBIDDEN_URLS) {
      for (const mode of ["live", "test"] as const) {
        await expect(
          resolveWebhookTarget(url, { mode, allowPrivate: false }),
          `${mode} ${url}`,
        ).rejects.toMatchObject({
          code: expect.stringMatching(/^url_(forbidden|invalid)$/),
        });
      }
    }
  });

  it("isForbiddenAddress covers every private range and lets public addresses through", () => {
    const forbidden = [
      "0.0.0.0",
      "127.0.0.1",
      "10.255.255.255",
      "172.31.255.255",
      "192.168.0.1",
      "169.254.169.254",
      "100.127.0.1",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "fc00::1",
      "fdff:ffff::1",
      "fe80::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "::ffff:169.254.169.254",
      "64:ff9b::7f00:1",
      "2002:7f00:1::1",
      "not-an-address",
      "",
    ];
    for (const a of forbidden) expect(isForbiddenAddress(a), a).toBe(true);
    for (const a of ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "2001:4860:4860::8888"]) {
      expect(isForbiddenAddress(a), a).toBe(false);
    }
  });

  it("a receiver answering 302 to a private address is not followed", async () => {
    let internalHits = 0;
    const internal = http.createServer((_req, res) => {
      internalHits++;
      res.end("secret metadata");
    });
    await new Promise<void>((r) => internal.listen(0, "127.0.0.1", r));
    const internalUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}/latest/meta-data/`;
    const redirector = http.createServer((req, res) => {
      req.resume();
      res.writeHead(302, { location: internalUrl }).end();
    });
    await new Promise<void>((r) => redirector.listen(0, "127.0.0.1", r));
    const port = (redirector.address() as AddressInfo).port;
    const client = createWebhookHttpClient();
    try {
      // The redirector itself is on loopback, so it is reached through a development-mode target;
      // what matters is what the client does with the 302.
      const target = await resolveWebhookTarget(`http://127.0.0.1:${port}/hook`, {
        mode: "test",
        allowPrivate: true,
      });
      for (const status of [301, 302, 303, 307, 308]) {
        redirector.removeAllListeners("request");
        redirector.on("request", (req, res) => {
          req.resume();
          res.writeHead(status, { location: internalUrl }).end();
        });
        const result = await client.post(target, { "content-type": "application/json" }, "{}", 5_000);
        expect(result.statusCode).toBe(status);
        expect(result.responseExcerpt ?? "").not.toContain("secret metadata");
      }
      expect(internalHits).toBe(0);
    } finally {
      client.close();
      await new Promise((r) => redirector.close(r));
      await new Promise((r) => internal.close(r));
    }
  });
});
