import http from "node:http";
import { createLogger } from "@gateway/logging";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookIngress, type WebhookIngress } from "./webhook-ingress.js";

const AUTH = "Bearer 0123456789abcdef-secret";
const OPEN = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const SIGNATURE = "5".repeat(88);
const hints: string[] = [];
let ingress: WebhookIngress;
let url: string;

beforeAll(async () => {
  ingress = await startWebhookIngress({
    host: "127.0.0.1",
    port: 0,
    authHeader: AUTH,
    log: createLogger({ name: "ingress-test", level: "silent" }),
    isOpen: (address) => address === OPEN,
    hint: (signature) => hints.push(signature),
  });
  url = `http://127.0.0.1:${ingress.port}/webhooks/solana`;
});
afterAll(async () => {
  await ingress.close();
});

const post = (body: unknown, auth: string | null = AUTH) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(auth === null ? {} : { authorization: auth }) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("webhook ingress", () => {
  it("keeps a provider's connection open past Node's 5 s idle close", async () => {
    // A webhook sent on a connection the server is closing fails and waits for the provider's
    // retry, a minute later: the connection stays ours for longer than providers keep one idle.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = () =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const request = http.request(
          url,
          { method: "POST", agent, headers: { authorization: AUTH, "content-type": "application/json" } },
          (response) => {
            response.resume();
            response.on("end", () => resolve({ status: response.statusCode!, reused: request.reusedSocket }));
          },
        );
        request.on("error", reject);
        request.end("[]");
      });
    try {
      expect(await send()).toEqual({ status: 200, reused: false });
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await send()).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  }, 15_000);

  it("refuses a missing or wrong Authorization header", async () => {
    expect((await post([], null)).status).toBe(401);
    expect((await post([], `${AUTH}x`)).status).toBe(401);
    expect((await post([], AUTH.slice(0, -1))).status).toBe(401);
    expect(hints).toEqual([]);
  });

  it("refuses bodies that are not enhanced transactions", async () => {
    expect((await post("not json")).status).toBe(400);
    expect((await post({ signature: SIGNATURE })).status).toBe(400);
    expect((await post([{ signature: "not-base58!" }])).status).toBe(400);
  });

  it("hints only signatures that mention an open address", async () => {
    const response = await post([
      { signature: SIGNATURE, accountData: [{ account: OPEN, tokenBalanceChanges: [] }] },
      { signature: "4".repeat(88), accountData: [{ account: "11111111111111111111111111111111" }] },
      {
        signature: "3".repeat(88),
        tokenTransfers: [{ toUserAccount: OPEN, tokenAmount: 1.5 }],
        type: "TRANSFER",
      },
    ]);
    expect(response.status).toBe(200);
    expect(hints).toEqual([SIGNATURE, "3".repeat(88)]);
  });
});
