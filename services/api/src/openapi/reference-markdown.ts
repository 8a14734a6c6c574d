import { openApiDocument } from "./document.js";

type Operation = {
  operationId: string;
  summary?: string;
  description?: string;
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string; required?: boolean; description?: string }[];
  requestBody?: { content: { "application/json": { schema: { $ref?: string } } } };
  responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
};

const schemaName = (schema?: { $ref?: string }) =>
  schema?.$ref ? `\`${schema.$ref.split("/").pop()}\`` : "JSON";

/** docs/api-reference.md, generated from the OpenAPI document so the two never disagree. */
export function apiReferenceMarkdown(): string {
  const doc = openApiDocument("{base_url}");
  const lines = [
    "# API reference",
    "",
    "Generated from `GET /openapi.json` (`pnpm --filter @gateway/api run generate`); a test fails when it is stale.",
    "Amounts are JSON numbers in requests and decimal strings in responses. Errors: [errors.md](errors.md).",
    "",
  ];
  for (const [path, item] of Object.entries(doc.paths) as [string, Record<string, Operation>][]) {
    for (const [method, op] of Object.entries(item)) {
      const security = op.security ?? doc.security;
      const auth =
        security.length === 0
          ? "none"
          : security
              .map((s) => (Object.keys(s)[0] === "bearer" ? "`Authorization: Bearer <JWT>`" : "`x-api-key`"))
              .join(" or ");
      lines.push(`## ${method.toUpperCase()} ${path}`, "");
      if (op.summary) lines.push(op.summary, "");
      if (op.description) lines.push(op.description, "");
      lines.push(`- operation: \`${op.operationId}\``, `- auth: ${auth}`);
      for (const p of op.parameters ?? []) {
        lines.push(
          `- ${p.in} parameter \`${p.name}\`${p.required ? " (required)" : ""}${p.description ? `: ${p.description}` : ""}`,
        );
      }
      if (op.requestBody)
        lines.push(`- body: ${schemaName(op.requestBody.content["application/json"].schema)}`);
      lines.push("", "| status | meaning | body |", "| - | - | - |");
      for (const [status, response] of Object.entries(op.responses)) {
        const json = response.content?.["application/json"];
        const other = Object.keys(response.content ?? {}).find((type) => type !== "application/json");
        const body = json || !other ? schemaName(json?.schema) : `\`${other}\``;
        lines.push(`| ${status} | ${response.description} | ${body} |`);
      }
      lines.push("");
    }
  }
  lines.push("## Schemas", "");
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    lines.push(`### ${name}`, "", "```json", JSON.stringify(schema, null, 2), "```", "");
  }
  return lines.join("\n");
}
