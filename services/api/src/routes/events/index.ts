import { GatewayError } from "@gateway/errors";
import { Router } from "express";
import { z } from "zod";
import { apiKeyPrincipal, requireApiKey } from "../../auth/require-api-key.js";
import type { ApiDeps } from "../../deps.js";
import { cursor, pageLimit } from "../../http/fields.js";
import { defineOperation, type Handler, mount } from "../../http/operation.js";
import { EventListSchema, EventSchema, EventTypeSchema } from "../../openapi/resources.js";
import { findEvent, listEvents } from "./event-store.js";

export const listEventsOperation = defineOperation({
  method: "get",
  path: "/events",
  operationId: "listEvents",
  summary: "The key's mode's events of the last 30 days, newest first, as webhooks carry them",
  auth: "apiKey",
  query: z.object({ limit: pageLimit, starting_after: cursor, type: EventTypeSchema.optional() }),
  responses: { 200: EventListSchema },
  errors: { 404: "`starting_after` is not an event of this key's mode (or is older than 30 days)." },
});

export const getEventOperation = defineOperation({
  method: "get",
  path: "/events/{id}",
  operationId: "getEvent",
  summary: "One event of the last 30 days, the body its webhooks carried",
  auth: "apiKey",
  params: z.object({ id: z.string().meta({ description: "Event id (evt_…)." }) }),
  responses: { 200: EventSchema },
  errors: { 404: "No such event (or another merchant's or mode's, or older than 30 days)." },
});

export const eventOperations = [listEventsOperation, getEventOperation] as const;

/** `GET /events?type=&limit=&starting_after=` and `GET /events/:id` (x-api-key, its mode only). */
export function eventRoutes(deps: ApiDeps): Router {
  const router = Router();
  const auth = requireApiKey(deps.sql);
  mount(router, listEventsOperation, [auth], listEventsHandler(deps));
  mount(router, getEventOperation, [auth], getEventHandler(deps));
  return router;
}

function listEventsHandler({ sql }: Pick<ApiDeps, "sql">): Handler<typeof listEventsOperation> {
  return async ({ query }, _req, res) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    const page = await listEvents(
      sql,
      { merchantId, mode },
      { limit: query.limit ?? 10, type: query.type, startingAfter: query.starting_after },
    );
    if (!page)
      throw new GatewayError("resource_not_found", { param: "starting_after", message: "No such event." });
    return { object: "list", data: page.events, has_more: page.hasMore };
  };
}

function getEventHandler({ sql }: Pick<ApiDeps, "sql">): Handler<typeof getEventOperation> {
  return async ({ params }, _req, res) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    const event = await findEvent(sql, { merchantId, mode }, params.id);
    if (!event) throw new GatewayError("resource_not_found", { param: "id", message: "No such event." });
    return event;
  };
}
