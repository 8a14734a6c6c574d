// Each HTTP operation is declared once: its path, its inputs and its answers as zod schemas.
// Validation (validation.ts), the OpenAPI document (openapi/document.ts) and the SDK's types
// (openapi/sdk-types.ts) all come from that one declaration.
import type { ErrorCode } from "@gateway/errors";
import type { Request, RequestHandler, Response, Router } from "express";
import type { z } from "zod";
import { requireRole, requireScope, routeKey } from "../auth/permissions.js";
import { validateInput } from "./validation.js";

export type Method = "get" | "post" | "put" | "delete";
/**
 * How a caller authenticates: `x-api-key`, the dashboard's bearer JWT, either of them (a
 * download both a merchant's server and the dashboard make), or not at all.
 */
export type Auth = "apiKey" | "bearer" | "apiKeyOrBearer" | "none";

/** A JSON answer, or a stream whose media type is all the document can say. */
export type Answer =
  | z.ZodType
  | { schema: z.ZodType; description: string }
  | { stream: string; description: string };
export type SuccessStatus = 200 | 201 | 202;
/** The error statuses an operation documents beyond those every operation of its kind may give. */
export type ErrorStatus = 401 | 403 | 404 | 409 | 503;

export interface OperationSpec {
  method: Method;
  /** OpenAPI's template: `/payments/{id}`. */
  path: string;
  operationId: string;
  summary?: string;
  description?: string;
  auth: Auth;
  /** The operation honours an `Idempotency-Key` header. */
  idempotent?: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodObject;
  /**
   * The documented code of an invalid (not missing) value of a field, when it is not
   * `parameter_invalid` (docs/errors.md): `currency_unsupported`, `chain_unsupported`, ….
   */
  codes?: Partial<Record<string, ErrorCode>>;
  responses: Partial<Record<SuccessStatus, Answer>> & Partial<Record<503, Answer>>;
  errors?: Partial<Record<ErrorStatus, string>>;
  /** The body of its errors when it is more than the shared `Error` (Solana Pay's adds `message`). */
  errorSchema?: z.ZodType;
  /** Served outside the JSON API (health): no rate limit and no body, so no error answers. */
  outsideApi?: boolean;
}

/** Identity, kept for its inferred type: the handler's inputs and answer are typed from it. */
export function defineOperation<const S extends OperationSpec>(spec: S): S {
  return spec;
}

/**
 * The operations on one resource addressed by its path: each takes the path's `params` and
 * answers 404 with `notFound` when there is no such resource (an operation may say more there).
 */
export function addressedBy<P extends z.ZodObject>(params: P, notFound: string) {
  return <const S extends Omit<OperationSpec, "params">>(spec: S) =>
    defineOperation({ ...spec, params, errors: { 404: notFound, ...spec.errors } });
}

type Out<T> = T extends z.ZodType ? z.output<T> : Record<string, never>;
type SchemaOf<A> = A extends z.ZodType ? A : A extends { schema: infer S extends z.ZodType } ? S : never;
type SuccessOf<S extends OperationSpec> = Extract<keyof S["responses"], SuccessStatus>;

/** What a handler is given: its operation's inputs, parsed. */
export interface Input<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/** Returned by a handler that answered through `res` itself (a stream, or a second status). */
export const ANSWERED = Symbol("answered");

type HandlerOf<I, A> = (input: I, req: Request, res: Response) => Promise<A | typeof ANSWERED>;

/**
 * An operation's handler: typed by its schemas only (not by its path or id), so one handler can
 * serve two operations of the same shape.
 */
export type Handler<S extends OperationSpec> = HandlerOf<InputOf<S>, AnswerOf<S>>;
type InputOf<S extends OperationSpec> = Input<Out<S["params"]>, Out<S["query"]>, Out<S["body"]>>;
type AnswerOf<S extends OperationSpec> = z.input<SchemaOf<S["responses"][SuccessOf<S>]>>;

/** `/payments/{id}` → `/payments/:id`. */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/** The status a handler's returned body is sent with: the operation's one 2xx answer. */
export function successStatus(spec: OperationSpec): SuccessStatus {
  const statuses = Object.keys(spec.responses)
    .map(Number)
    .filter((s): s is SuccessStatus => s >= 200 && s < 300);
  if (statuses.length !== 1) throw new Error(`${spec.operationId} must declare exactly one 2xx answer`);
  return statuses[0]!;
}

/** Every operation mounted in this process: a test checks the document lists exactly these. */
export const MOUNTED = new Set<OperationSpec>();

const AUTHENTICATES = Symbol("authenticates");

/** Marks the guard that finds the caller: the permission check is mounted right after it. */
export function authenticator(guard: RequestHandler): RequestHandler {
  return Object.assign(guard, { [AUTHENTICATES]: true });
}

/**
 * The guards with the operation's permission check (auth/permissions.ts) after its authenticator,
 * so that it runs before idempotency could replay another caller's answer.
 */
function withPermission(spec: OperationSpec, guards: RequestHandler[]): RequestHandler[] {
  if (spec.auth === "none") return guards;
  const at = guards.findLastIndex((g) => AUTHENTICATES in g);
  if (at < 0) throw new Error(`${spec.operationId} is mounted without its authenticator`);
  const check = permissionCheck(spec);
  return [...guards.slice(0, at + 1), check, ...guards.slice(at + 1)];
}

/** The role check for a session, the scope check for a key; either for a route that takes both. */
function permissionCheck(spec: OperationSpec): RequestHandler {
  const key = routeKey(spec);
  if (spec.auth === "bearer") return requireRole(key);
  if (spec.auth === "apiKey") return requireScope(key);
  const [role, scope] = [requireRole(key), requireScope(key)];
  return (req, res, next) => (res.locals.apiKey ? scope(req, res, next) : role(req, res, next));
}

/**
 * Mounts an operation: its guards (authentication, permission, idempotency) run first, as before
 * any handler, then its inputs are validated, then the handler's answer is sent with the
 * operation's 2xx status.
 */
export function mount<S extends OperationSpec>(
  router: Router,
  spec: S,
  guards: RequestHandler[],
  handler: HandlerOf<InputOf<NoInfer<S>>, AnswerOf<NoInfer<S>>>,
): void {
  const status = successStatus(spec);
  const run: RequestHandler = async (req, res) => {
    const input = validateInput(spec, req) as unknown as InputOf<S>;
    const answer = await handler(input, req, res);
    if (answer !== ANSWERED) res.status(status).json(answer);
  };
  router[spec.method](expressPath(spec.path), ...withPermission(spec, guards), run);
  MOUNTED.add(spec);
}
