// gRPC over HTTP/2 for the signer. With TLS configured, every client must present a
// certificate signed by the configured CA (mTLS); plaintext is only reachable when
// config allowed it (development).
import { readFileSync } from "node:fs";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  AuditHeadSchema,
  RefusalCode,
  RefusalDetailSchema,
  ServiceAddressesSchema,
  SignerService,
  SignResponseSchema,
  SignResultSchema,
} from "@gateway/signer-proto";
import { BadRequestError, type SignerCore } from "./signer-core.js";

/** Upper bound on one batch: keeps one caller from holding the event loop for long. */
export const MAX_BATCH = 1000;

export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

export interface SignerServerOptions {
  core: SignerCore;
  host: string;
  port: number;
  /** Undefined means plaintext HTTP/2; config only allows that in development. */
  tls: TlsFiles | undefined;
}

export interface SignerServer {
  start(): Promise<{ port: number }>;
  stop(): Promise<void>;
  readonly listening: boolean;
}

function badRequest(error: unknown): never {
  if (error instanceof BadRequestError) throw new ConnectError(error.message, Code.InvalidArgument);
  throw error;
}

/** Each answer carries the chain's head, so callers can notice a log cut back on this host. */
function auditHead(core: SignerCore) {
  const { seq, hash } = core.auditHead();
  return create(AuditHeadSchema, { seq: BigInt(seq), hash });
}

export function signerRoutes(core: SignerCore) {
  return (router: ConnectRouter) =>
    router.service(SignerService, {
      deriveDepositAddress(request) {
        try {
          return { address: core.deriveDepositAddress(request.chain, request.mode, request.index) };
        } catch (error) {
          badRequest(error);
        }
      },
      getServiceAddresses() {
        return { addresses: core.serviceAddresses().map((a) => create(ServiceAddressesSchema, a)) };
      },
      getAuditHead() {
        return { head: auditHead(core) };
      },
      async sign(request) {
        const outcome = core.decide(request);
        await core.sync();
        if (outcome.ok)
          return create(SignResponseSchema, { ...outcome.response, auditHead: auditHead(core) });
        const { code, reason, intentId } = outcome.refusal;
        const status =
          code === RefusalCode.INVALID_INTENT || code === RefusalCode.MALFORMED_TRANSACTION
            ? Code.InvalidArgument
            : code === RefusalCode.UNSPECIFIED
              ? Code.Internal
              : Code.PermissionDenied;
        throw new ConnectError(`refused: ${RefusalCode[code]}: ${reason}`, status, undefined, [
          { desc: RefusalDetailSchema, value: { intentId, code, reason } },
        ]);
      },
      async signBatch(request) {
        if (request.requests.length > MAX_BATCH) {
          throw new ConnectError(`at most ${MAX_BATCH} requests per batch`, Code.InvalidArgument);
        }
        const results = request.requests.map((item) => {
          const outcome = core.decide(item);
          return create(
            SignResultSchema,
            outcome.ok
              ? { result: { case: "signed", value: outcome.response } }
              : { result: { case: "refused", value: outcome.refusal } },
          );
        });
        await core.sync();
        return { results, auditHead: auditHead(core) };
      },
    });
}

export function createSignerServer(options: SignerServerOptions): SignerServer {
  const handler = connectNodeAdapter({
    routes: signerRoutes(options.core),
    grpc: true,
    grpcWeb: false,
    connect: false,
    readMaxBytes: 16 * 1024 * 1024,
  });
  const server = options.tls
    ? http2.createSecureServer(
        {
          ca: readFileSync(options.tls.ca),
          cert: readFileSync(options.tls.cert),
          key: readFileSync(options.tls.key),
          requestCert: true,
          rejectUnauthorized: true,
          minVersion: "TLSv1.3",
          allowHTTP1: false,
        },
        handler,
      )
    : http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  let listening = false;

  return {
    get listening() {
      return listening;
    },
    start() {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(options.port, options.host, () => {
          server.off("error", reject);
          listening = true;
          resolve({ port: (server.address() as AddressInfo).port });
        });
      });
    },
    stop() {
      listening = false;
      return new Promise((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.close();
      });
    },
  };
}
