// `gateway listen --forward-to <url>`: follows GET /events and POSTs each new event to a local
// server, signed with a secret of its own as Gateway signs webhooks, so the merchant's own
// verification code runs unchanged against it.
import { randomInt } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { GatewayEvent } from "@gateway/contracts";
import { buildSignatureHeader, SIGNATURE_HEADER } from "@gateway/webhook-signature";
import type { ApiClient } from "./api-client.js";
import { networkReason } from "./api-client.js";
import type { Output } from "./output.js";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Pages read back per poll at most: a backlog longer than this is forwarded over several polls. */
const MAX_PAGES_PER_POLL = 10;
/** Event ids remembered, newest kept: far more than the events a poll can find. */
const SEEN_CAP = 10_000;

/** `whsec_` and 40 base-62 characters, the shape of an endpoint's secret. */
export function localSigningSecret(): string {
  let secret = "whsec_";
  for (let i = 0; i < 40; i++) secret += ALPHABET[randomInt(ALPHABET.length)];
  return secret;
}

export interface ListenOptions {
  client: ApiClient;
  out: Output;
  forwardTo: string;
  secret: string;
  pollMs: number;
  /** Forward only these types; all when empty. */
  types: readonly string[];
}

interface EventPage {
  data: GatewayEvent[];
  has_more: boolean;
}

export class EventForwarder {
  readonly #o: ListenOptions;
  readonly #seen = new Set<string>();
  #stopped = false;

  constructor(options: ListenOptions) {
    this.#o = options;
  }

  /** Events that exist already are not forwarded: only what happens from now on. */
  async start(): Promise<void> {
    const first = await this.#o.client.get<EventPage>("/events?limit=100");
    for (const event of first.data) this.#remember(event.id);
  }

  async run(): Promise<void> {
    while (!this.#stopped) {
      for (const event of await this.#newEvents()) {
        if (this.#stopped) return;
        this.#remember(event.id);
        if (this.#o.types.length === 0 || this.#o.types.includes(event.type)) await this.#forward(event);
      }
      await sleep(this.#o.pollMs);
    }
  }

  stop(): void {
    this.#stopped = true;
  }

  /**
   * Pages newest first until one holds an event already seen, oldest first for forwarding. An
   * event committed late behind newer ones still turns up on the first page of a later poll.
   */
  async #newEvents(): Promise<GatewayEvent[]> {
    const fresh: GatewayEvent[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES_PER_POLL; page++) {
      const list = await this.#o.client.get<EventPage>(
        `/events?limit=100${after ? `&starting_after=${encodeURIComponent(after)}` : ""}`,
      );
      const unseen = list.data.filter((e) => !this.#seen.has(e.id));
      fresh.push(...unseen);
      if (!list.has_more || unseen.length < list.data.length) break;
      after = list.data.at(-1)?.id;
    }
    return fresh.reverse();
  }

  async #forward(event: GatewayEvent): Promise<void> {
    const body = JSON.stringify(event);
    const started = performance.now();
    let status: number | undefined;
    let failure: string | undefined;
    try {
      const response = await fetch(this.#o.forwardTo, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          [SIGNATURE_HEADER]: buildSignatureHeader(this.#o.secret, Math.floor(Date.now() / 1000), body),
          "x-gateway-event-id": event.id,
          "x-gateway-event-type": event.type,
          "user-agent": "Gateway-CLI/1.0",
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      status = response.status;
      await response.arrayBuffer().catch(() => undefined);
    } catch (err) {
      failure = networkReason(err);
    }
    const ms = Math.round(performance.now() - started);
    const ok = status !== undefined && status >= 200 && status < 300;
    this.#o.out.result(
      failure === undefined
        ? `${event.type} ${event.id} → ${this.#o.forwardTo} ${status} (${ms} ms)`
        : `${event.type} ${event.id} → ${this.#o.forwardTo} not delivered: ${failure}`,
      {
        event_id: event.id,
        type: event.type,
        delivered: ok,
        status: status ?? null,
        error: failure ?? null,
        latency_ms: ms,
      },
    );
  }

  #remember(id: string): void {
    this.#seen.add(id);
    if (this.#seen.size > SEEN_CAP) this.#seen.delete(this.#seen.values().next().value as string);
  }
}
