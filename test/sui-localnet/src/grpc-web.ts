// A gRPC-Web server over node:http for the generated protobuf-ts service descriptors that
// @mysten/sui ships: binary framing, trailers in the body, unary and server-streaming calls.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { IMessageType } from "@protobuf-ts/runtime";
import type { ServiceType } from "@protobuf-ts/runtime-rpc";

/** The gRPC status codes this server answers with. */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

/** An error that reaches the client as a gRPC status rather than as INTERNAL. */
export class GrpcError extends Error {
  override readonly name = "GrpcError";
  constructor(
    readonly code: GrpcCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface ServerStream {
  send(message: object): void;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

/**
 * A method implementation: unary methods return the response, server-streaming methods send
 * messages on the stream and resolve when the stream ends.
 */
export type MethodHandler = (input: object, stream: ServerStream) => unknown;
export type StreamHandler = (input: object, stream: ServerStream) => Promise<void>;

export type ServiceImplementation = Record<string, MethodHandler>;

interface Route {
  input: IMessageType<object>;
  output: IMessageType<object>;
  streaming: boolean;
  handler: MethodHandler;
}

const DATA_FRAME = 0x00;
const TRAILER_FRAME = 0x80;

function frame(kind: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + payload.length);
  out[0] = kind;
  new DataView(out.buffer).setUint32(1, payload.length, false);
  out.set(payload, 5);
  return out;
}

function trailer(code: GrpcCode, message: string): Uint8Array {
  const text = `grpc-status:${code}\r\ngrpc-message:${encodeURIComponent(message)}\r\n`;
  return frame(TRAILER_FRAME, new TextEncoder().encode(text));
}

async function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

// A request carries exactly one data frame holding the input message.
function unframeRequest(body: Uint8Array): Uint8Array {
  if (body.length < 5 || body[0] !== DATA_FRAME) {
    throw new GrpcError(GrpcCode.INVALID_ARGUMENT, "request body is not a grpc-web data frame");
  }
  const length = new DataView(body.buffer, body.byteOffset).getUint32(1, false);
  if (body.length < 5 + length) throw new GrpcError(GrpcCode.INVALID_ARGUMENT, "truncated grpc-web frame");
  return body.subarray(5, 5 + length);
}

function toStatus(error: unknown): { code: GrpcCode; message: string } {
  if (error instanceof GrpcError) return { code: error.code, message: error.message };
  return { code: GrpcCode.INTERNAL, message: error instanceof Error ? error.message : String(error) };
}

export interface GrpcWebRouter {
  /** Whether the request is a gRPC-Web call this router should answer. */
  matches(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export function createGrpcWebRouter(
  services: Array<{ service: ServiceType; implementation: ServiceImplementation }>,
): GrpcWebRouter {
  const routes = new Map<string, Route>();
  for (const { service, implementation } of services) {
    for (const method of service.methods) {
      const handler = implementation[method.name];
      if (!handler) continue;
      routes.set(`/${service.typeName}/${method.name}`, {
        input: method.I as IMessageType<object>,
        output: method.O as IMessageType<object>,
        streaming: method.serverStreaming,
        handler,
      });
    }
  }

  return {
    matches(req) {
      return req.method === "POST" && (req.headers["content-type"] ?? "").startsWith("application/grpc-web");
    },
    async handle(req, res) {
      const route = routes.get((req.url ?? "").split("?")[0] ?? "");
      // protobuf-ts (and so SuiGrpcClient) defaults to the base64 "text" variant; both are served.
      const text = (req.headers["content-type"] ?? "").startsWith("application/grpc-web-text");
      const encode = (bytes: Uint8Array): Uint8Array | string =>
        text ? Buffer.from(bytes).toString("base64") : bytes;
      res.writeHead(200, {
        "content-type": text ? "application/grpc-web-text+proto" : "application/grpc-web+proto",
        "access-control-allow-origin": "*",
        "access-control-expose-headers": "grpc-status,grpc-message",
      });
      const abort = new AbortController();
      res.on("close", () => abort.abort());
      try {
        if (!route) throw new GrpcError(GrpcCode.UNIMPLEMENTED, `method ${req.url} is not served here`);
        let input: object;
        try {
          const body = await readBody(req);
          const bytes = text
            ? new Uint8Array(Buffer.from(Buffer.from(body).toString("latin1"), "base64"))
            : body;
          input = route.input.fromBinary(unframeRequest(bytes));
        } catch (cause) {
          if (cause instanceof GrpcError) throw cause;
          throw new GrpcError(GrpcCode.INVALID_ARGUMENT, "request message does not decode", { cause });
        }
        const stream: ServerStream = {
          signal: abort.signal,
          send: (message) => {
            if (!abort.signal.aborted) res.write(encode(frame(DATA_FRAME, route.output.toBinary(message))));
          },
        };
        const output = await route.handler(input, stream);
        if (!route.streaming) stream.send(output as object);
        if (!abort.signal.aborted) res.end(encode(trailer(GrpcCode.OK, "")));
      } catch (error) {
        const status = toStatus(error);
        if (!abort.signal.aborted) res.end(encode(trailer(status.code, status.message)));
      }
    },
  };
}
