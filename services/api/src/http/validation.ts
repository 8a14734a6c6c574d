// An operation's inputs checked against its schemas, a failure answered with the documented
// error (docs/errors.md): the first problem only, with the code and `param` merchants switch on.
import { type ErrorCode, GatewayError, isErrorCode } from "@gateway/errors";
import type { Request } from "express";
import type { z } from "zod";
import type { OperationSpec } from "./operation.js";

type Part = "params" | "query" | "body";

/**
 * Parses path parameters, then the query, then the body. Within a part: a field the schema
 * does not know comes first (`parameter_unknown`), then each field in the schema's order: a
 * required one that is absent, null or empty is `parameter_missing`, any other bad value the
 * field's code (`parameter_invalid` unless the operation names another, or a refinement carries
 * the domain's own, such as `amount_too_precise`).
 */
export function validateInput(spec: OperationSpec, req: Request): Record<Part, unknown> {
  const out: Record<Part, unknown> = { params: {}, query: {}, body: {} };
  for (const part of ["params", "query", "body"] as const) {
    const schema = spec[part];
    if (!schema) continue;
    const raw: unknown = part === "params" ? req.params : part === "query" ? req.query : req.body;
    out[part] = parsePart(schema, raw, part, spec.codes ?? {});
  }
  return out;
}

function parsePart(
  schema: z.ZodObject,
  raw: unknown,
  part: Part,
  codes: Partial<Record<string, ErrorCode>>,
): unknown {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new GatewayError("body_invalid", { message: "The request body must be a JSON object." });
  }
  const input = raw as Record<string, unknown>;
  if (part !== "params") {
    const unknown = Object.keys(input).find((key) => !Object.hasOwn(schema.shape, key));
    if (unknown !== undefined) {
      throw new GatewayError("parameter_unknown", {
        param: unknown,
        message: `Unknown parameter: ${unknown}.`,
      });
    }
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw issueError(result.error.issues[0]!, schema, input, codes);
}

function issueError(
  issue: z.core.$ZodIssue,
  schema: z.ZodObject,
  input: Record<string, unknown>,
  codes: Partial<Record<string, ErrorCode>>,
): GatewayError {
  const [field, ...rest] = issue.path;
  const param = paramOf(issue.path);
  if (typeof field !== "string") return new GatewayError("parameter_invalid", { message: issue.message });
  const domainCode = issue.code === "custom" ? issue.params?.code : undefined;
  if (isErrorCode(domainCode)) return new GatewayError(domainCode, { param, message: issue.message });
  const raw = input[field];
  const fieldSchema = schema.shape[field] as z.ZodType | undefined;
  const optional = fieldSchema?.safeParse(undefined).success ?? true;
  if (rest.length === 0 && !optional && (raw === undefined || raw === null || raw === "")) {
    return new GatewayError("parameter_missing", { param, message: `Missing required parameter: ${param}.` });
  }
  return new GatewayError(codes[field] ?? "parameter_invalid", {
    param,
    message: `${param}: ${issue.message}`,
  });
}

/** `["events", 2]` → `events[2]`, as the API has always named an element at fault. */
function paramOf(path: PropertyKey[]): string {
  return path
    .map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`))
    .join("");
}
