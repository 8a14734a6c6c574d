import net from "node:net";
import { resolveWebhookTarget } from "@gateway/webhook-endpoints";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookHttpClient } from "./http-post.js";

// A raw server that answers the first request of each connection and resets the connection on the
// second: what a client sees when a server drops an idle keep-alive socket as it is reused.
let server: net.Server;
let port: number;
const requestsPerConnection: number[] = [];
beforeAll(async () => {
  server = net.createServer((socket) => {
    const index = requestsPerConnection.push(0) - 1;
    socket.on("data", (chunk) => {
      if (!chunk.toString("latin1").startsWith("POST ")) return;
      requestsPerConnection[index]! += 1;
      if (requestsPerConnection[index]! > 1) socket.resetAndDestroy();
      else socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok");
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("webhook HTTP client", () => {
  it("retries once on a fresh connection when a reused keep-alive socket is reset", async () => {
    const client = createWebhookHttpClient();
    const target = await resolveWebhookTarget(`http://127.0.0.1:${port}/hook`, {
      mode: "test",
      allowPrivate: true,
    });
    try {
      const first = await client.post(target, {}, "{}", 2_000);
      const second = await client.post(target, {}, "{}", 2_000);
      expect(first).toMatchObject({ statusCode: 200, responseExcerpt: "ok", error: null });
      expect(second).toMatchObject({ statusCode: 200, responseExcerpt: "ok", error: null });
      // The second request went out on the first connection (reset), then on a new one.
      expect(requestsPerConnection).toEqual([2, 1]);
    } finally {
      client.close();
    }
  });
});
