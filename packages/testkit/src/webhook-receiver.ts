import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, as verifyWebhook needs it. */
  body: string;
  receivedAt: number;
}

/** What the receiver answers to the n-th request (0-based): a status, optionally late, or never. */
export type ReceiverBehaviour = (
  request: ReceivedWebhook,
  index: number,
) => { status: number; delayMs?: number; body?: string } | "hang";

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every webhook it gets; for tests and benchmarks. */
export async function startWebhookReceiver(
  behaviour: ReceiverBehaviour = () => ({ status: 200 }),
  { record = true } = {},
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let count = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request: ReceivedWebhook = {
        path: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      };
      if (record) received.push(request);
      const answer = behaviour(request, count++);
      if (answer === "hang") return;
      const send = () =>
        res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body ?? "ok");
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
