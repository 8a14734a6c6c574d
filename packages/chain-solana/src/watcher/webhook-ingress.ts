// The HTTP ingress for provider webhooks. A report is only a hint: it is authenticated,
// schema-checked, and the signatures that mention an open address are handed to the tracker,
// which reads the chain itself. The answer is immediate so the provider never retries for
// our slowness.
import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { Logger } from "@gateway/logging";
import { z } from "zod";

const base58 = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,90}$/);

/** The parts of Helius' enhanced transaction that name addresses; the rest is ignored. */
const enhancedTransaction = z.object({
  signature: base58,
  nativeTransfers: z
    .array(z.object({ fromUserAccount: z.string().nullish(), toUserAccount: z.string().nullish() }))
    .nullish(),
  tokenTransfers: z
    .array(
      z.object({
        fromUserAccount: z.string().nullish(),
        toUserAccount: z.string().nullish(),
        toTokenAccount: z.string().nullish(),
      }),
    )
    .nullish(),
  accountData: z
    .array(
      z.object({
        account: z.string(),
        tokenBalanceChanges: z.array(z.object({ userAccount: z.string() })).nullish(),
      }),
    )
    .nullish(),
});
const webhookBody = z.array(enhancedTransaction).max(1000);

export type EnhancedTransactionHint = z.infer<typeof enhancedTransaction>;

export interface WebhookIngress {
  port: number;
  close(): Promise<void>;
}

export interface WebhookIngressOptions {
  host?: string;
  port: number;
  path?: string;
  authHeader: string;
  log: Logger;
  isOpen(address: string): boolean;
  hint(signature: string): void;
  maxBodyBytes?: number;
}

function mentioned(tx: EnhancedTransactionHint): string[] {
  const addresses: string[] = [];
  for (const t of tx.nativeTransfers ?? []) if (t.toUserAccount) addresses.push(t.toUserAccount);
  for (const t of tx.tokenTransfers ?? []) {
    if (t.toUserAccount) addresses.push(t.toUserAccount);
    if (t.toTokenAccount) addresses.push(t.toTokenAccount);
  }
  for (const a of tx.accountData ?? []) {
    addresses.push(a.account);
    for (const c of a.tokenBalanceChanges ?? []) addresses.push(c.userAccount);
  }
  return addresses;
}

/** Equal-length digests, so the comparison takes the same time whatever the header holds. */
function sameSecret(given: string | undefined, expected: string): boolean {
  const a = createHash("sha256")
    .update(given ?? "")
    .digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b) && given !== undefined;
}

export async function startWebhookIngress(options: WebhookIngressOptions): Promise<WebhookIngress> {
  const { log } = options;
  const path = options.path ?? "/webhooks/solana";
  const maxBodyBytes = options.maxBodyBytes ?? 5 * 1024 * 1024;

  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    if ((req.url ?? "").split("?")[0] !== path) return reply(404, { error: "not_found" });
    if (req.method !== "POST") return reply(405, { error: "method_not_allowed" });
    if (!sameSecret(req.headers.authorization, options.authHeader)) {
      req.resume();
      return reply(401, { error: "unauthorized" });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        reply(413, { error: "too_large" });
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (res.headersSent) return;
      let parsed: z.infer<typeof webhookBody>;
      try {
        parsed = webhookBody.parse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        return reply(400, { error: "invalid_body" });
      }
      let hinted = 0;
      for (const tx of parsed) {
        if (mentioned(tx).some((address) => options.isOpen(address))) {
          options.hint(tx.signature);
          hinted++;
        }
      }
      log.debug({ transactions: parsed.length, hinted }, "provider webhook");
      reply(200, { ok: true });
    });
  });
  // A provider keeps its connections open between webhooks; Node closes an idle one after 5 s, and
  // a webhook sent as it closes waits for the provider's retry (a minute with Helius). Kept open longer.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(options.port, options.host ?? "0.0.0.0", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
