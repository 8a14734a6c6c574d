// The SDK's types (packages/sdk/src/gen/types.ts), written from the OpenAPI document so
// the SDK, which ships without dependencies, says exactly what the API answers.
import { openApiDocument } from "./document.js";

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  description?: string;
};
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema: Schema };

/** Names the SDK exports for inline parts of the document. */
const PROPERTY_ALIASES: Record<string, [component: string, property: string]> = {
  Currency: ["Payment", "currency"],
  SimulatedOutcome: ["SimulateRequest", "outcome"],
};
const COMPONENT_ALIASES: Record<string, string> = {
  CreatePaymentParams: "CreatePaymentRequest",
  CreateWebhookParams: "CreateWebhookRequest",
};
/** Components that add to another: written as `extends` it, with only the fields they add. */
const EXTENSIONS: Record<string, string> = {
  CreatedApiKeypair: "ApiKeypair",
  LinkedPayoutWallet: "PayoutWallet",
  CreatedWebhookEndpoint: "WebhookEndpoint",
};
/** Query parameters of these operations, as one interface each. */
const QUERY_INTERFACES: Record<string, string> = {
  ListPaymentsParams: "listPayments",
  ListWebhookDeliveriesParams: "listWebhookDeliveries",
};

const comment = (text: string | undefined, indent: string) =>
  text ? `${indent}/** ${text.replaceAll("*/", "* /")} */\n` : "";

function tsType(schema: Schema, indent = ""): string {
  if (schema.$ref) return schema.$ref.split("/").pop()!;
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.anyOf) return schema.anyOf.map((s) => tsType(s, indent)).join(" | ");
  if (Array.isArray(schema.type))
    return schema.type.map((type) => tsType({ ...schema, type }, indent)).join(" | ");
  switch (schema.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const item = tsType(schema.items ?? {}, indent);
      return /[|&]/.test(item) && !item.startsWith("{") ? `(${item})[]` : `${item}[]`;
    }
    case "object":
      return objectType(schema, indent);
    default:
      return "unknown";
  }
}

function objectType(schema: Schema, indent: string): string {
  const required = new Set(schema.required ?? []);
  const inner = `${indent}  `;
  const lines = Object.entries(schema.properties ?? {}).map(
    ([name, property]) =>
      `${comment(property.description, inner)}${inner}${name}${required.has(name) ? "" : "?"}: ${tsType(property, inner)};`,
  );
  return lines.length ? `{\n${lines.join("\n")}\n${indent}}` : "Record<string, never>";
}

/** `List<Item>` when the schema is a page of one component (`listOf` in resources.ts). */
function listItem(schema: Schema): string | undefined {
  const { object, data, has_more } = schema.properties ?? {};
  const names = Object.keys(schema.properties ?? {});
  if (names.length !== 3 || object?.const !== "list" || has_more?.type !== "boolean") return undefined;
  return data?.type === "array" && data.items?.$ref ? tsType(data.items) : undefined;
}

/** The schema without the properties of `base`, which it must hold exactly as `base` does. */
function beyond(name: string, schema: Schema, baseName: string, base: Schema | undefined): Schema {
  const required = new Set(schema.required ?? []);
  const own = { ...schema.properties };
  for (const [property, definition] of Object.entries(base?.properties ?? {})) {
    const same =
      JSON.stringify(own[property]) === JSON.stringify(definition) &&
      required.has(property) === (base?.required ?? []).includes(property);
    if (!same) throw new Error(`${name} does not hold ${baseName}.${property} as ${baseName} does`);
    delete own[property];
  }
  return { ...schema, properties: own, required: [...required].filter((p) => p in own) };
}

function declaration(name: string, schema: Schema, schemas: Record<string, Schema>): string {
  const item = listItem(schema);
  if (item) return `${comment(schema.description, "")}export type ${name} = List<${item}>;`;
  const baseName = EXTENSIONS[name];
  if (baseName) {
    const added = tsType(beyond(name, schema, baseName, schemas[baseName]));
    return `${comment(schema.description, "")}export interface ${name} extends ${baseName} ${added}`;
  }
  const type = tsType(schema);
  return schema.type === "object" && type.startsWith("{")
    ? `${comment(schema.description, "")}export interface ${name} ${type}`
    : `${comment(schema.description, "")}export type ${name} = ${type};`;
}

export function sdkTypesSource(): string {
  const doc = openApiDocument("{base_url}");
  const schemas = doc.components.schemas as Record<string, Schema>;
  const out = [
    "// Generated by services/api/src/openapi/sdk-types.ts from the OpenAPI document; do not edit.",
    "// Regenerate with `pnpm --filter @gateway/api run generate`; a test fails when this is stale.",
    "",
  ];
  for (const [name, schema] of Object.entries(schemas)) {
    if (name === "Error") continue;
    out.push(declaration(name, schema, schemas), "");
  }
  for (const [alias, [component, property]] of Object.entries(PROPERTY_ALIASES)) {
    const schema = schemas[component]?.properties?.[property];
    if (!schema) throw new Error(`no ${component}.${property} for ${alias}`);
    out.push(`export type ${alias} = ${tsType(schema)};`, "");
  }
  for (const [alias, component] of Object.entries(COMPONENT_ALIASES)) {
    if (!schemas[component]) throw new Error(`no component ${component} for ${alias}`);
    out.push(`export type ${alias} = ${component};`, "");
  }
  const operations = Object.values(doc.paths).flatMap((item) =>
    Object.values(item as Record<string, { operationId: string; parameters?: Parameter[] }>),
  );
  for (const [name, operationId] of Object.entries(QUERY_INTERFACES)) {
    const op = operations.find((o) => o.operationId === operationId);
    if (!op) throw new Error(`no operation ${operationId} for ${name}`);
    const query = (op.parameters ?? []).filter((p) => p.in === "query");
    const schema: Schema = {
      type: "object",
      properties: Object.fromEntries(
        query.map((p) => [p.name, { ...p.schema, ...(p.description ? { description: p.description } : {}) }]),
      ),
      required: query.filter((p) => p.required).map((p) => p.name),
    };
    out.push(`export interface ${name} ${tsType(schema)}`, "");
  }
  out.push(
    "/** A page of a list, newest first. */",
    "export interface List<T> {",
    '  object: "list";',
    "  data: T[];",
    "  has_more: boolean;",
    "}",
    "",
  );
  return out.join("\n");
}
