import { EVENT_TYPES, isEventType } from "@gateway/contracts";
import { newId, retryWhileUnavailable } from "@gateway/db";
import type { Mode } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import {
  generateEndpointSecret,
  openSecret,
  parseSecretKey,
  resolveWebhookTarget,
  sealSecret,
} from "@gateway/webhook-endpoints";
import type { RequestHandler, Response } from "express";
import type { ApiDeps } from "../../deps.js";
import { idempotencyClaim, idempotentId, type SecretAnswer } from "../../http/idempotency.js";
import { bodyObject } from "../../http/json-body.js";
import { optionalString, pageLimit, queryString, rejectUnknown, required } from "../../http/params.js";
import { toDeliveryResource, toEndpointResource } from "./webhook-resource.js";
import {
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  listPaymentDeliveries,
  MAX_ENDPOINTS_PER_MODE,
  redeliver,
  type WebhookScope,
} from "./webhook-store.js";

type Deps = Pick<ApiDeps, "sql" | "config">;

/**
 * How a caller is identified: the merchant, the modes it may see, and the mode a new endpoint
 * gets from the request's `is_test` (an API key: its own mode only; the dashboard: either).
 */
export interface WebhookCaller {
  scope(res: Response): WebhookScope;
  modeForNewEndpoint(isTest: unknown, res: Response): Mode;
}

const CREATE_FIELDS = ["url", "is_test", "events", "description"] as const;

function parseEvents(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length === 0 || value.length > EVENT_TYPES.length + 1) {
    throw new GatewayError("parameter_invalid", {
      param: "events",
      message: `events must be a non-empty list of event types, or ["*"].`,
    });
  }
  if (value.length === 1 && value[0] === "*") return null;
  const types = new Set<string>();
  for (const [i, type] of value.entries()) {
    if (!isEventType(type)) {
      throw new GatewayError("parameter_invalid", {
        param: `events[${i}]`,
        message: `Unknown event type; one of ${EVENT_TYPES.join(", ")}, or "*" alone.`,
      });
    }
    types.add(type);
  }
  return EVENT_TYPES.filter((t) => types.has(t));
}

/**
 * The stored Idempotency-Key answer of an endpoint creation keeps no secret: a replay opens it
 * again from the endpoint's sealed copy.
 */
export function endpointSecretAnswer({ sql, config }: Deps): SecretAnswer {
  const key = parseSecretKey(config.WEBHOOK_SECRET_KEY);
  return {
    storable(body) {
      const { secret: _secret, ...rest } = body as Record<string, unknown>;
      return rest;
    },
    async replay(stored) {
      const body = stored as { id: string };
      const [row] = await sql<{ secret_sealed: Buffer }[]>`
        select secret_sealed from webhook_endpoints where id = ${body.id}`;
      return row ? { ...body, secret: openSecret(key, body.id, row.secret_sealed) } : body;
    },
  };
}

/** `POST /webhooks`: the `whsec_` secret is in this response only; it is stored sealed. */
export function createWebhook({ sql, config }: Deps, caller: WebhookCaller): RequestHandler {
  const key = parseSecretKey(config.WEBHOOK_SECRET_KEY);
  return async (req, res) => {
    const { merchantId } = caller.scope(res);
    const body = bodyObject(req.body);
    rejectUnknown(body, CREATE_FIELDS);
    const rawUrl = required<unknown>(body, "url");
    const mode = caller.modeForNewEndpoint(body.is_test, res);
    const events = parseEvents(body.events);
    const description = optionalString(body, "description", 500);
    const target = await resolveWebhookTarget(rawUrl, { mode, allowPrivate: config.ALLOW_PRIVATE_WEBHOOKS });
    // With an Idempotency-Key the id is the key's, so a retry of a request whose answer was lost
    // finds the endpoint already made (and answers its secret) instead of making a second one.
    const claim = idempotencyClaim(res);
    const id = claim ? idempotentId("whk", "webhook_endpoint", claim) : newId("whk");
    const secret = generateEndpointSecret();
    const sealed = sealSecret(key, id, secret);
    const input = { id, merchantId, mode, url: target.url.toString(), description, events, sealed };
    // Safe to repeat while the database restarts: the id is fixed and an existing row is kept.
    const created = await retryWhileUnavailable(() => insertEndpoint(sql, input));
    if (!created) {
      throw new GatewayError("state_conflict", {
        message: `At most ${MAX_ENDPOINTS_PER_MODE} webhook endpoints per mode; delete one first.`,
      });
    }
    // An endpoint an earlier attempt made keeps its own secret, opened from its sealed copy.
    const answer = created.sealed === sealed ? secret : openSecret(key, id, created.sealed);
    res.status(201).json({ ...toEndpointResource(created.endpoint), secret: answer });
  };
}

export function listWebhooks(
  { sql }: Deps,
  caller: WebhookCaller,
  modeFilter?: (res: Response) => Mode | undefined,
): RequestHandler {
  return async (_req, res) => {
    const scope = caller.scope(res);
    const mode = scope.mode ?? modeFilter?.(res);
    const rows = await listEndpoints(sql, { ...scope, mode });
    res.json({ object: "list", data: rows.map(toEndpointResource), has_more: false });
  };
}

async function endpointOr404(sql: Deps["sql"], scope: WebhookScope, id: string) {
  const endpoint = await findEndpoint(sql, scope, id);
  if (!endpoint)
    throw new GatewayError("resource_not_found", { param: "id", message: "No such webhook endpoint." });
  return endpoint;
}

/** `DELETE /webhooks/:id`. */
export function deleteWebhook({ sql }: Deps, caller: WebhookCaller): RequestHandler {
  return async (req, res) => {
    const id = String(req.params.id);
    if (!(await deleteEndpoint(sql, caller.scope(res), id))) {
      throw new GatewayError("resource_not_found", { param: "id", message: "No such webhook endpoint." });
    }
    res.json({ id, deleted: true });
  };
}

/** `GET /webhooks/:id/deliveries?limit=&starting_after=&event_id=`: newest first, each with its attempts. */
export function listWebhookDeliveries({ sql }: Deps, caller: WebhookCaller): RequestHandler {
  return async (req, res) => {
    const endpoint = await endpointOr404(sql, caller.scope(res), String(req.params.id));
    for (const name of Object.keys(req.query)) {
      if (!["limit", "starting_after", "event_id"].includes(name))
        throw new GatewayError("parameter_unknown", { param: name });
    }
    const limit = req.query.limit === undefined ? 20 : pageLimit(req.query.limit);
    const startingAfter = queryString(req.query.starting_after, "starting_after");
    const eventId = queryString(req.query.event_id, "event_id");
    const page = await listDeliveries(sql, endpoint.id, {
      limit,
      ...(startingAfter === undefined ? {} : { startingAfter }),
      ...(eventId === undefined ? {} : { eventId }),
    });
    if (!page)
      throw new GatewayError("resource_not_found", { param: "starting_after", message: "No such delivery." });
    res.json({
      object: "list",
      data: page.rows.map((d) =>
        toDeliveryResource(
          d,
          page.attempts.filter((a) => a.delivery_id === d.id),
        ),
      ),
      has_more: page.hasMore,
    });
  };
}

/** `POST /webhooks/:id/redeliver {event_id}`: one more attempt now; 202 with the delivery. */
export function redeliverWebhook({ sql }: Deps, caller: WebhookCaller): RequestHandler {
  return async (req, res) => {
    const endpoint = await endpointOr404(sql, caller.scope(res), String(req.params.id));
    const body = bodyObject(req.body);
    rejectUnknown(body, ["event_id"]);
    const eventId = required<unknown>(body, "event_id");
    if (typeof eventId !== "string" || !/^evt_[0-9A-Za-z]{1,64}$/.test(eventId)) {
      throw new GatewayError("parameter_invalid", {
        param: "event_id",
        message: "event_id must be an evt_ id.",
      });
    }
    const delivery = await redeliver(sql, endpoint, eventId);
    if (!delivery)
      throw new GatewayError("resource_not_found", { param: "event_id", message: "No such event." });
    res.status(202).json(toDeliveryResource(delivery, []));
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `GET /dashboard/api/webhook-deliveries?payment_id=`: a payment's deliveries, for its detail page. */
export function listDeliveriesOfPayment({ sql }: Deps, caller: WebhookCaller): RequestHandler {
  return async (req, res) => {
    const { merchantId } = caller.scope(res);
    for (const name of Object.keys(req.query)) {
      if (name !== "payment_id") throw new GatewayError("parameter_unknown", { param: name });
    }
    const paymentId = required<unknown>(req.query as Record<string, unknown>, "payment_id");
    if (typeof paymentId !== "string" || !UUID.test(paymentId)) {
      throw new GatewayError("parameter_invalid", {
        param: "payment_id",
        message: "payment_id must be a payment id.",
      });
    }
    const { rows, attempts } = await listPaymentDeliveries(sql, merchantId, paymentId);
    res.json({
      object: "list",
      data: rows.map((d) =>
        toDeliveryResource(
          d,
          attempts.filter((a) => a.delivery_id === d.id),
        ),
      ),
      has_more: false,
    });
  };
}
