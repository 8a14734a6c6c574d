// The OpenAPI 3.1 document, generated from the operations' declarations (http/operation.ts) by
// zod's own JSON Schema output: nothing here describes a path or a schema by hand.
import { CHAINS, chainModule } from "@gateway/chains";
import { z } from "zod";
import type { Answer, OperationSpec } from "../http/operation.js";
import { OPERATIONS } from "./operations.js";
import { ErrorSchema } from "./resources.js";

type Json = Record<string, unknown>;

const REF = "#/components/schemas/";
const SHARED = `${REF}__shared#/$defs/`;
const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  503: "Unavailable",
};

/** Either scheme of `apiKeyOrBearer` is enough (OpenAPI: alternatives are separate entries). */
function securityOf(auth: OperationSpec["auth"]): Record<string, string[]>[] {
  if (auth === "none") return [];
  if (auth === "apiKeyOrBearer") return [{ apiKey: [] }, { bearer: [] }];
  return [{ [auth]: [] }];
}

/** What each documented error status means, unless the operation says more. */
function errorAnswers(op: OperationSpec): Record<string, string> {
  const errors: Record<string, string> = {
    "400": "Invalid request: `code` and `param` say what and where.",
  };
  if (op.auth === "apiKey") errors["401"] = "Missing, unknown or inactive API key.";
  if (op.auth === "bearer") errors["401"] = "Missing or invalid session token.";
  if (op.auth === "apiKeyOrBearer") errors["401"] = "Missing or invalid API key or session token.";
  if (op.auth !== "none")
    errors["403"] =
      op.auth === "bearer"
        ? "`permission_denied`: your role may not do this; `two_factor_setup_required`: your team requires a second factor you have not set up."
        : op.auth === "apiKeyOrBearer"
          ? "`permission_denied`: this key's scopes, or your role, do not allow this route."
          : "`permission_denied`: this key's scopes do not allow this route.";
  for (const [status, description] of Object.entries(op.errors ?? {}))
    errors[status] = status === "403" && errors["403"] ? `${description} ${errors["403"]}` : description;
  errors["429"] = "Rate limited, or too many attempts: retry after the `Retry-After` header's seconds.";
  return errors;
}

/**
 * Converts every schema the operations use in one pass per direction: requests as they are sent
 * (zod's input), answers and parsed parameters as they come out (its output). Schemas with an
 * `id` become components; the others are inlined where they are used.
 */
function convert(operations: readonly OperationSpec[]) {
  const registries = { input: z.registry<{ id: string }>(), output: z.registry<{ id: string }>() };
  const used = { input: new Map<z.ZodType, string>(), output: new Map<z.ZodType, string>() };
  const add = (io: "input" | "output", schema: z.ZodType, name: string) => {
    if (used[io].has(schema)) return;
    const id = z.globalRegistry.get(schema)?.id ?? `__inline_${name}`;
    used[io].set(schema, id);
    registries[io].add(schema, { id });
  };
  add("output", ErrorSchema, "error");
  for (const op of operations) {
    if (op.params) add("output", op.params, `${op.operationId}_params`);
    if (op.query) add("output", op.query, `${op.operationId}_query`);
    if (op.body) add("input", op.body, `${op.operationId}_body`);
    if (op.errorSchema) add("output", op.errorSchema, `${op.operationId}_error`);
    for (const [status, answer] of Object.entries(op.responses)) {
      const schema = schemaOf(answer);
      if (schema) add("output", schema, `${op.operationId}_${status}`);
    }
  }
  const components: Record<string, Json> = {};
  const inline = new Map<z.ZodType, Json>();
  for (const io of ["input", "output"] as const) {
    const { schemas } = z.toJSONSchema(registries[io], {
      target: "draft-2020-12",
      io,
      metadata: z.globalRegistry,
      uri: (id) => `${REF}${id}`,
    }) as { schemas: Record<string, Json> };
    const shared = (schemas.__shared?.$defs ?? {}) as Record<string, Json>;
    const found: Record<string, Json> = { ...shared };
    for (const [id, schema] of Object.entries(schemas)) if (id !== "__shared") found[id] = schema;
    for (const [id, raw] of Object.entries(found)) {
      const schema = tidy(raw);
      if (id.startsWith("__inline_")) continue;
      const before = components[id];
      if (before && JSON.stringify(before) !== JSON.stringify(schema)) {
        throw new Error(`component ${id} differs between requests and answers`);
      }
      components[id] = schema;
    }
    for (const [schema, id] of used[io]) {
      inline.set(schema, id.startsWith("__inline_") ? tidy(found[id]!) : { $ref: `${REF}${id}` });
    }
  }
  const sorted = Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
  return { components: sorted, jsonOf: (schema: z.ZodType) => inline.get(schema)! };
}

/** Drops what a component does not need and points shared definitions at the components. */
function tidy(schema: Json): Json {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return JSON.parse(JSON.stringify(rest).replaceAll(SHARED, REF)) as Json;
}

const isSchema = (answer: Answer): answer is z.ZodType => "_zod" in answer;

function schemaOf(answer: Answer): z.ZodType | undefined {
  if (isSchema(answer)) return answer;
  return "schema" in answer ? answer.schema : undefined;
}

function parameters(location: "path" | "query", json: Json): Json[] {
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return {
      name,
      in: location,
      ...(location === "path" || required.has(name) ? { required: true } : {}),
      ...(description === undefined ? {} : { description }),
      schema: rest,
    };
  });
}

const IDEMPOTENCY_KEY = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Replays the first response for 24 h; another body with the same key is a 409.",
  schema: { type: "string", maxLength: 255 },
};

function operationObject(op: OperationSpec, jsonOf: (schema: z.ZodType) => Json): Json {
  const json = (schema: Json, description: string) => ({
    description,
    content: { "application/json": { schema } },
  });
  const responses: Record<string, Json> = {};
  for (const [status, answer] of Object.entries(op.responses)) {
    const description = isSchema(answer) ? (STATUS_TEXT[Number(status)] ?? "OK") : answer.description;
    responses[status] =
      !isSchema(answer) && "stream" in answer
        ? { description, content: { [answer.stream]: { schema: { type: "string" } } } }
        : json(jsonOf(schemaOf(answer)!), description);
  }
  if (!op.outsideApi) {
    for (const [status, description] of Object.entries(errorAnswers(op)))
      responses[status] ??= json(
        op.errorSchema ? jsonOf(op.errorSchema) : { $ref: `${REF}Error` },
        description,
      );
  }
  const params = [
    ...(op.params ? parameters("path", jsonOf(op.params)) : []),
    ...(op.query ? parameters("query", jsonOf(op.query)) : []),
    ...(op.idempotent ? [IDEMPOTENCY_KEY] : []),
  ];
  const body = op.body ? jsonOf(op.body) : undefined;
  const bodyRequired = op.body
    ? Object.values(op.body.shape).some((f) => !f.safeParse(undefined).success)
    : false;
  return {
    operationId: op.operationId,
    ...(op.summary ? { summary: op.summary } : {}),
    ...(op.description ? { description: op.description } : {}),
    security: securityOf(op.auth),
    ...(params.length ? { parameters: params } : {}),
    ...(body
      ? { requestBody: { required: bodyRequired, content: { "application/json": { schema: body } } } }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
  };
}

let built: { components: Record<string, Json>; paths: Record<string, Record<string, Json>> } | undefined;

function build() {
  const { components, jsonOf } = convert(OPERATIONS);
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    paths[op.path]![op.method] = operationObject(op, jsonOf);
  }
  return { components, paths };
}

/** The registry's chains in words: "Solana and Sui". */
const CHAINS_IN_WORDS = new Intl.ListFormat("en").format(CHAINS.map((chain) => chainModule(chain).name));

export function openApiDocument(serverUrl: string) {
  built ??= build();
  return {
    openapi: "3.1.0",
    info: {
      title: "Gateway API",
      version: "1.0.0",
      description:
        `Crypto payments on ${CHAINS_IN_WORDS}. ` +
        "Merchant calls authenticate with `x-api-key` (gw_test_… or gw_live_…); dashboard and payout calls with `Authorization: Bearer <JWT>`. Amounts are JSON numbers in requests and decimal strings in responses.",
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "x-api-key" },
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      },
      schemas: built.components,
    },
    security: [{ apiKey: [] }],
    paths: built.paths,
  };
}
