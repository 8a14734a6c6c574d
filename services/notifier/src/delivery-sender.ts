// One attempt of one delivery: the address checked again, the body signed with the endpoint's
// secret, one POST.
import { openSecret, resolveWebhookTarget } from "@gateway/webhook-endpoints";
import { buildSignatureHeader } from "@gateway/webhook-signature";
import type { ClaimedDelivery } from "./delivery-rows.js";
import type { PostResult, WebhookHttpClient } from "./http-post.js";

export interface DeliverySenderOptions {
  http: WebhookHttpClient;
  secretKey: Buffer;
  allowPrivate: boolean;
  /** Per attempt, connect to last byte. */
  timeoutMs: number;
}

/** Past this many opened secrets the cache starts over, so its memory stays bounded. */
const MAX_SECRETS = 10_000;

export class DeliverySender {
  readonly #options: DeliverySenderOptions;
  /** Endpoint id to its opened secret: opening it is a decryption, saved on each later attempt. */
  readonly #secrets = new Map<string, string>();

  constructor(options: DeliverySenderOptions) {
    this.#options = options;
  }

  /** Never throws: an address refused or a secret that will not open is a failed attempt, not sent. */
  async send(row: ClaimedDelivery, startedAt: Date): Promise<PostResult> {
    const { http, allowPrivate, timeoutMs } = this.#options;
    try {
      // Checked again now: the name may resolve elsewhere than at registration (DNS rebinding).
      const target = await resolveWebhookTarget(row.url, { mode: row.mode, allowPrivate });
      const timestamp = Math.floor(Date.now() / 1000);
      return await http.post(
        target,
        {
          "content-type": "application/json",
          "user-agent": "Gateway-Webhooks/1.0",
          "x-gateway-signature": buildSignatureHeader(this.#secretOf(row), timestamp, row.payload),
          "x-gateway-event-id": row.event_id,
          "x-gateway-event-type": row.event_type,
        },
        row.payload,
        timeoutMs,
      );
    } catch (err) {
      return {
        statusCode: null,
        latencyMs: Date.now() - startedAt.getTime(),
        responseExcerpt: null,
        error: `not sent: ${(err as Error).message}`.slice(0, 300),
      };
    }
  }

  #secretOf(row: ClaimedDelivery): string {
    let secret = this.#secrets.get(row.endpoint_id);
    if (secret === undefined) {
      secret = openSecret(this.#options.secretKey, row.endpoint_id, row.secret_sealed);
      if (this.#secrets.size > MAX_SECRETS) this.#secrets.clear();
      this.#secrets.set(row.endpoint_id, secret);
    }
    return secret;
  }
}
