import { EVENT_TYPES, type EventType } from "@gateway/contracts";
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
import type { Response } from "express";
import { z } from "zod";
import { callerActor, createAudit } from "../../auth/audit.js";
import type { ApiDeps } from "../../deps.js";
import { cursor, emptyBody, modeField, pageLimit, queryText } from "../../http/fields.js";
import { idempotencyClaim, idempotentId, type SecretAnswer } from "../../http/idempotency.js";
import { addressedBy, defineOperation, type Handler } from "../../http/operation.js";
import {
  CreatedWebhookEndpointSchema,
  DeletedSchema,
  EventTypeSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookEndpointListSchema,
} from "../../openapi/resources.js";
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
  sendTestEvent,
  type WebhookScope,
} from "./webhook-store.js";

type Deps = Pick<ApiDeps, "sql" | "config">;

/**
 * How a caller is identified: the merchant, the modes it may see, and the mode a new endpoint
 * gets from the request's `is_test` (an API key: its own mode only; the dashboard: either).
 */
export interface WebhookCaller {
  scope(res: Response): WebhookScope;
  modeForNewEndpoint(isTest: boolean | null | undefined, res: Response): Mode;
}

/** Event types, or `["*"]` (the default) for every type, including those added later. */
const eventsField = z
  .array(z.union([EventTypeSchema, z.literal("*")]))
  .min(1, `must be a non-empty list of event types, or ["*"].`)
  .max(EVENT_TYPES.length + 1)
  .superRefine((events, ctx) => {
    if (events.length === 1) return;
    const star = events.indexOf("*");
    if (star >= 0)
      ctx.addIssue({ code: "custom", path: [star], input: events, message: '"*" stands alone.' });
  })
  .nullish()
  .meta({ description: "Default: every event." });

const createFields = {
  url: z.string().min(1).meta({ description: "https in live mode; http for test endpoints." }),
  events: eventsField,
  description: z.string().max(500).nullish(),
};

/** With an API key `is_test` may only repeat the key's mode, and defaults to it. */
export const CreateWebhookRequest = z
  .strictObject({ ...createFields, is_test: z.boolean().nullish() })
  .meta({ id: "CreateWebhookRequest" });

/** The dashboard manages both modes: `is_test` says which. */
export const DashboardCreateWebhookRequest = z
  .strictObject({ ...createFields, is_test: z.boolean() })
  .meta({ id: "DashboardCreateWebhookRequest" });

const endpointId = z.object({ id: z.string().meta({ description: "Endpoint id (whk_…)." }) });
const NOT_FOUND = "No such webhook endpoint (or another merchant's or mode's).";

/** The operations of `/webhooks` (x-api-key) and of `/dashboard/api/webhooks` (session JWT). */
function webhookOperations<const Prefix extends string>(prefix: Prefix, auth: "apiKey" | "bearer") {
  const dashboard = auth === "bearer";
  const id = (name: string) => (dashboard ? `dashboard${name[0]!.toUpperCase()}${name.slice(1)}` : name);
  const onEndpoint = addressedBy(endpointId, NOT_FOUND);
  return {
    create: defineOperation({
      method: "post",
      path: prefix,
      operationId: id("createWebhook"),
      summary: "Registers an endpoint; the `whsec_` signing secret is returned once.",
      auth,
      idempotent: true,
      body: dashboard ? DashboardCreateWebhookRequest : CreateWebhookRequest,
      codes: { url: "url_invalid" },
      responses: { 201: CreatedWebhookEndpointSchema },
      errors: {
        ...(dashboard ? {} : { 403: "A test key registers only test endpoints." }),
        409: "Idempotency-Key reused with another body, or too many endpoints for this mode.",
      },
    }),
    list: defineOperation({
      method: "get",
      path: prefix,
      operationId: id("listWebhooks"),
      auth,
      ...(dashboard
        ? { query: z.object({ mode: modeField.optional().meta({ description: "Both when absent." }) }) }
        : {}),
      responses: { 200: WebhookEndpointListSchema },
    }),
    delete: onEndpoint({
      method: "delete",
      path: `${prefix}/{id}`,
      operationId: id("deleteWebhook"),
      auth,
      responses: { 200: DeletedSchema },
    }),
    deliveries: onEndpoint({
      method: "get",
      path: `${prefix}/{id}/deliveries`,
      operationId: id("listWebhookDeliveries"),
      summary: "Every delivery with each attempt: status, latency, response excerpt.",
      auth,
      query: z.object({
        limit: pageLimit.meta({ description: "1 to 100; 20 by default." }),
        starting_after: cursor,
        event_id: queryText.optional().meta({ description: "Only this event's deliveries." }),
      }),
      responses: { 200: WebhookDeliveryListSchema },
    }),
    redeliver: onEndpoint({
      method: "post",
      path: `${prefix}/{id}/redeliver`,
      operationId: id("redeliverWebhook"),
      summary:
        "One more attempt now, for any event of the endpoint's merchant and mode (even one older than the endpoint).",
      auth,
      idempotent: true,
      body: z.strictObject({ event_id: z.string().regex(/^evt_[0-9A-Za-z]{1,64}$/, "must be an evt_ id.") }),
      responses: { 202: { schema: WebhookDeliverySchema, description: "Queued" } },
      errors: { 404: `${NOT_FOUND} Or no such event.` },
    }),
    test: onEndpoint({
      method: "post",
      path: `${prefix}/{id}/test`,
      operationId: id("testWebhook"),
      summary:
        "Sends a signed `webhook.test` event to this endpoint now, one attempt, logged with its deliveries.",
      auth,
      body: emptyBody,
      responses: { 202: { schema: WebhookDeliverySchema, description: "Queued for delivery now" } },
    }),
  };
}

export const merchantWebhookOperations = webhookOperations("/webhooks", "apiKey");
export const dashboardWebhookOperations = webhookOperations("/dashboard/api/webhooks", "bearer");

export const paymentDeliveriesOperation = defineOperation({
  method: "get",
  path: "/dashboard/api/webhook-deliveries",
  operationId: "dashboardPaymentDeliveries",
  summary: "The webhook deliveries of one payment's events.",
  auth: "bearer",
  query: z.object({
    payment_id: z
      .string()
      .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "must be a payment id."),
  }),
  responses: { 200: WebhookDeliveryListSchema },
});

type Ops = typeof merchantWebhookOperations;

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
export function createWebhook({ sql, config }: Deps, caller: WebhookCaller): Handler<Ops["create"]> {
  const key = parseSecretKey(config.WEBHOOK_SECRET_KEY);
  const audit = createAudit(config.TRUSTED_PROXIES);
  return async ({ body }, req, res) => {
    const { merchantId } = caller.scope(res);
    const mode = caller.modeForNewEndpoint(body.is_test, res);
    // Stored in the contracts' order; none (null) means every type, "*".
    const events =
      !body.events || body.events[0] === "*"
        ? null
        : EVENT_TYPES.filter((t) => (body.events as EventType[]).includes(t));
    const description = body.description ?? null;
    const target = await resolveWebhookTarget(body.url, {
      mode,
      allowPrivate: config.ALLOW_PRIVATE_WEBHOOKS,
    });
    // With an Idempotency-Key the id is the key's, so a retry of a request whose answer was lost
    // finds the endpoint already made (and answers its secret) instead of making a second one.
    const claim = idempotencyClaim(res);
    const id = claim ? idempotentId("whk", "webhook_endpoint", claim) : newId("whk");
    const secret = generateEndpointSecret();
    const sealed = sealSecret(key, id, secret);
    const input = { id, merchantId, mode, url: target.url.toString(), description, events, sealed };
    // The audit entry commits with the endpoint, or neither does.
    const entry = {
      ...callerActor(res),
      action: "webhook.created" as const,
      details: { endpoint: id, url: input.url, mode },
    };
    // Safe to repeat while the database restarts: the id is fixed and an existing row is kept.
    const created = await retryWhileUnavailable(() =>
      insertEndpoint(sql, input, (tx) => audit.record(tx, entry, req)),
    );
    if (!created) {
      throw new GatewayError("state_conflict", {
        message: `At most ${MAX_ENDPOINTS_PER_MODE} webhook endpoints per mode; delete one first.`,
      });
    }
    // An endpoint an earlier attempt made keeps its own secret, opened from its sealed copy.
    const answer = created.sealed === sealed ? secret : openSecret(key, id, created.sealed);
    return { ...toEndpointResource(created.endpoint), secret: answer };
  };
}

export function listWebhooks(
  { sql }: Deps,
  caller: WebhookCaller,
): Handler<Ops["list"] | (typeof dashboardWebhookOperations)["list"]> {
  return async ({ query }, _req, res) => {
    const scope = caller.scope(res);
    const mode = scope.mode ?? ("mode" in query ? query.mode : undefined);
    const rows = await listEndpoints(sql, { ...scope, mode });
    return { object: "list", data: rows.map(toEndpointResource), has_more: false };
  };
}

async function endpointOr404(sql: Deps["sql"], scope: WebhookScope, id: string) {
  const endpoint = await findEndpoint(sql, scope, id);
  if (!endpoint)
    throw new GatewayError("resource_not_found", { param: "id", message: "No such webhook endpoint." });
  return endpoint;
}

/** `DELETE /webhooks/:id`. */
export function deleteWebhook({ sql, config }: Deps, caller: WebhookCaller): Handler<Ops["delete"]> {
  const audit = createAudit(config.TRUSTED_PROXIES);
  return async ({ params: { id } }, req, res) => {
    const entry = { ...callerActor(res), action: "webhook.deleted" as const, details: { endpoint: id } };
    if (!(await deleteEndpoint(sql, caller.scope(res), id, (tx) => audit.record(tx, entry, req)))) {
      throw new GatewayError("resource_not_found", { param: "id", message: "No such webhook endpoint." });
    }
    return { id, deleted: true };
  };
}

/** `GET /webhooks/:id/deliveries?limit=&starting_after=&event_id=`: newest first, each with its attempts. */
export function listWebhookDeliveries({ sql }: Deps, caller: WebhookCaller): Handler<Ops["deliveries"]> {
  return async ({ params, query }, _req, res) => {
    const endpoint = await endpointOr404(sql, caller.scope(res), params.id);
    const { starting_after: startingAfter, event_id: eventId } = query;
    const page = await listDeliveries(sql, endpoint.id, {
      limit: query.limit ?? 20,
      ...(startingAfter === undefined ? {} : { startingAfter }),
      ...(eventId === undefined ? {} : { eventId }),
    });
    if (!page)
      throw new GatewayError("resource_not_found", { param: "starting_after", message: "No such delivery." });
    return {
      object: "list",
      data: page.rows.map((d) =>
        toDeliveryResource(
          d,
          page.attempts.filter((a) => a.delivery_id === d.id),
        ),
      ),
      has_more: page.hasMore,
    };
  };
}

/** `POST /webhooks/:id/redeliver {event_id}`: one more attempt now; 202 with the delivery. */
export function redeliverWebhook({ sql }: Deps, caller: WebhookCaller): Handler<Ops["redeliver"]> {
  return async ({ params, body: { event_id: eventId } }, _req, res) => {
    const endpoint = await endpointOr404(sql, caller.scope(res), params.id);
    const delivery = await redeliver(sql, endpoint, eventId);
    if (!delivery)
      throw new GatewayError("resource_not_found", { param: "event_id", message: "No such event." });
    return toDeliveryResource(delivery, []);
  };
}

/** `POST /webhooks/:id/test`: a `webhook.test` event for this endpoint only; 202 with its delivery. */
export function testWebhook({ sql }: Deps, caller: WebhookCaller): Handler<Ops["test"]> {
  return async ({ params }, _req, res) => {
    const endpoint = await endpointOr404(sql, caller.scope(res), params.id);
    return toDeliveryResource(await sendTestEvent(sql, endpoint), []);
  };
}

/** `GET /dashboard/api/webhook-deliveries?payment_id=`: a payment's deliveries, for its detail page. */
export function listDeliveriesOfPayment(
  { sql }: Deps,
  caller: WebhookCaller,
): Handler<typeof paymentDeliveriesOperation> {
  return async ({ query: { payment_id: paymentId } }, _req, res) => {
    const { merchantId } = caller.scope(res);
    const { rows, attempts } = await listPaymentDeliveries(sql, merchantId, paymentId);
    return {
      object: "list",
      data: rows.map((d) =>
        toDeliveryResource(
          d,
          attempts.filter((a) => a.delivery_id === d.id),
        ),
      ),
      has_more: false,
    };
  };
}
