// gRPC over HTTP/2 for the signer. With TLS configured, every client must present a
// certificate signed by the configured CA (mTLS, checked against the CRL when one is set)
// that names a role; each RPC and intent kind is open only to the roles access.ts lists.
// Plaintext is only reachable when config allowed it (development).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { SecureContextOptions, TLSSocket } from "node:tls";
import { create } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  createContextKey,
  createContextValues,
  type HandlerContext,
  type ServiceImpl,
} from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  AuditHeadSchema,
  DepositIndexIssuedSchema,
  DeriveDepositAddressResultSchema,
  PayoutDestinationSchema,
  RefusalCode,
  RefusalDetailSchema,
  ServiceAddressesSchema,
  SignerService,
  type SignRequest,
  SignResponseSchema,
  SignResultSchema,
} from "@gateway/signer-proto";
import type { Logger } from "pino";
import { type IntentKindName, mayCall, mayRequest } from "./access.js";
import { BadRequestError, checkDepositRequest, IndexIssuedError } from "./addresses.js";
import { type DestinationOutcome, NotFoundError } from "./destinations.js";
import { type Caller, callerFromCertificate, describeCaller } from "./identity.js";
import { refusalCodeName } from "./refusal.js";
import type { SignerCore } from "./signer-core.js";
import type { AuditLog } from "./state/audit-log.js";

/** Upper bound on one batch: keeps one caller from holding the event loop for long. */
export const MAX_BATCH = 1000;

export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
  /** PEM certificate revocation list of the CA; a revoked client gets no TLS session. */
  crl?: string;
}

export interface SignerServerOptions {
  core: SignerCore;
  /** Where refusals of a caller's identity or role are recorded, like every other decision. */
  audit: Pick<AuditLog, "append" | "sync">;
  host: string;
  port: number;
  /** Undefined means plaintext HTTP/2; config only allows that in development. */
  tls: TlsFiles | undefined;
  /** Outside development, certificates issued by a development CA are refused. */
  production: boolean;
  log?: Logger;
}

export interface SignerServer {
  start(): Promise<{ port: number }>;
  stop(): Promise<void>;
  /**
   * Re-reads the TLS files (CA, certificate, key, CRL). When they changed, new handshakes use
   * them and open sessions are closed gracefully, so a revocation also ends live connections.
   * Returns whether anything changed.
   */
  reloadTls(): boolean;
  readonly listening: boolean;
}

/** The access layer's refusals, from the one set of refusal codes (the proto's RefusalCode). */
export type AccessRefusalCode = RefusalCode.UNKNOWN_ROLE | RefusalCode.ROLE_NOT_ALLOWED;

const callerKey = createContextKey<Caller>(
  { kind: "unknown", problem: "no client certificate" },
  { description: "the signer's caller" },
);

function readTls(files: TlsFiles): { options: SecureContextOptions; digest: string } {
  const options: SecureContextOptions = {
    ca: readFileSync(files.ca),
    cert: readFileSync(files.cert),
    key: readFileSync(files.key),
    minVersion: "TLSv1.3",
    ...(files.crl ? { crl: readFileSync(files.crl) } : {}),
  };
  const hash = createHash("sha256");
  for (const part of [options.ca, options.cert, options.key, options.crl]) {
    hash.update(part ? (part as Buffer) : Buffer.alloc(0)).update("\0");
  }
  return { options, digest: hash.digest("hex") };
}

function badRequest(error: unknown): never {
  if (error instanceof BadRequestError) throw new ConnectError(error.message, Code.InvalidArgument);
  if (error instanceof IndexIssuedError)
    throw new ConnectError(error.message, Code.AlreadyExists, undefined, [
      { desc: DepositIndexIssuedSchema, value: { highestIssued: error.highest } },
    ]);
  if (error instanceof NotFoundError) throw new ConnectError(error.message, Code.NotFound);
  throw error;
}

/** A refusal as the caller sees it: the status by class, and the RefusalDetail. */
function refusalError(intentId: string, code: RefusalCode, reason: string): ConnectError {
  const status =
    code === RefusalCode.INVALID_INTENT || code === RefusalCode.MALFORMED_TRANSACTION
      ? Code.InvalidArgument
      : code === RefusalCode.UNSPECIFIED
        ? Code.Internal
        : Code.PermissionDenied;
  return new ConnectError(`refused: ${RefusalCode[code]}: ${reason}`, status, undefined, [
    { desc: RefusalDetailSchema, value: { intentId, code, reason } },
  ]);
}

/** An allow-list change, answered once its audit line is on disk. */
async function destinationAnswer(core: SignerCore, decide: () => DestinationOutcome) {
  let outcome: DestinationOutcome;
  try {
    outcome = decide();
  } catch (error) {
    badRequest(error);
  }
  await core.sync();
  if (!outcome.ok) throw refusalError("", outcome.refusal.code, outcome.refusal.reason);
  return {
    destination: create(PayoutDestinationSchema, outcome.destination),
    auditHead: auditHead(core),
  };
}

/** Each answer carries the chain's head, so callers can notice a log cut back on this host. */
function auditHead(core: SignerCore) {
  const { seq, hash } = core.auditHead();
  return create(AuditHeadSchema, { seq: BigInt(seq), hash });
}

interface Access {
  refuse(
    rpc: string,
    caller: Caller,
    code: AccessRefusalCode,
    reason: string,
    intent?: object,
  ): Promise<never>;
}

function createAccess(audit: SignerServerOptions["audit"], log: Logger | undefined): Access {
  return {
    async refuse(rpc, caller, code, reason, intent = {}) {
      const who = describeCaller(caller);
      const name = refusalCodeName(code);
      audit.append({ decision: "refused", intent: { rpc, ...intent, ...who }, code: name, reason });
      await audit.sync();
      log?.warn({ rpc, code: name, ...who }, "caller refused");
      throw refusalError(String((intent as { intentId?: unknown }).intentId ?? ""), code, reason);
    },
  };
}

/** Every RPC passes here before its request body is read. */
function gate(access: Access) {
  return async (context: HandlerContext) => {
    const caller = context.values.get(callerKey);
    const rpc = context.method.name;
    if (caller.kind === "development") return;
    if (caller.kind === "unknown")
      return access.refuse(rpc, caller, RefusalCode.UNKNOWN_ROLE, caller.problem);
    if (!mayCall(caller.role, rpc)) {
      return access.refuse(
        rpc,
        caller,
        RefusalCode.ROLE_NOT_ALLOWED,
        `role ${caller.role} may not call ${rpc}`,
      );
    }
  };
}

/** Intent kinds a role may not ask for refuse the whole call: that caller is not behaving. */
async function checkKinds(
  access: Access,
  rpc: string,
  context: HandlerContext,
  requests: SignRequest[],
): Promise<void> {
  const caller = context.values.get(callerKey);
  if (caller.kind !== "role") return;
  for (const request of requests) {
    const kind: IntentKindName | undefined = request.intent?.kind.case;
    if (!mayRequest(caller.role, kind)) {
      await access.refuse(
        rpc,
        caller,
        RefusalCode.ROLE_NOT_ALLOWED,
        `role ${caller.role} may not request ${kind} intents`,
        {
          intentId: request.intent?.intentId,
          kind,
        },
      );
    }
  }
}

type SignerImpl = ServiceImpl<typeof SignerService>;

export function signerRoutes(core: SignerCore, access: Access) {
  return (router: ConnectRouter) =>
    router.service(SignerService, {
      ...addressRoutes(core),
      ...signingRoutes(core, access),
      ...destinationRoutes(core),
    } satisfies SignerImpl);
}

/** Deposit addresses (each index on record before its address leaves) and the service addresses. */
function addressRoutes(
  core: SignerCore,
): Pick<SignerImpl, "deriveDepositAddress" | "deriveDepositAddresses" | "getServiceAddresses"> {
  return {
    async deriveDepositAddress(request) {
      let address: string;
      try {
        address = core.deriveDepositAddress(request.chain, request.mode, request.index);
      } catch (error) {
        badRequest(error);
      }
      // The index is on record before the address leaves: a crash cannot forget it was given.
      await core.sync();
      return { address };
    },
    async deriveDepositAddresses(request) {
      if (request.requests.length > MAX_BATCH) {
        throw new ConnectError(`at most ${MAX_BATCH} requests per batch`, Code.InvalidArgument);
      }
      // Every item is read before any index is handed out: a bad one fails the call alone.
      try {
        for (const item of request.requests) checkDepositRequest(item.chain, item.mode, item.index);
      } catch (error) {
        badRequest(error);
      }
      const results = request.requests.map((item) => {
        try {
          const address = core.deriveDepositAddress(item.chain, item.mode, item.index);
          return create(DeriveDepositAddressResultSchema, { result: { case: "address", value: address } });
        } catch (error) {
          if (!(error instanceof IndexIssuedError)) throw error;
          return create(DeriveDepositAddressResultSchema, {
            result: { case: "issued", value: { highestIssued: error.highest } },
          });
        }
      });
      // The indices are on record before the addresses leave, as for one address.
      await core.sync();
      return { results };
    },
    getServiceAddresses() {
      return { addresses: core.serviceAddresses().map((a) => create(ServiceAddressesSchema, a)) };
    },
  };
}

/** Signing, one request or a batch, answered once its audit entries are on disk, and the log's head. */
function signingRoutes(
  core: SignerCore,
  access: Access,
): Pick<SignerImpl, "sign" | "signBatch" | "getAuditHead"> {
  return {
    getAuditHead(request) {
      const newest = auditHead(core);
      if (request.atSeq === 0n) return { head: newest, newest };
      const entry =
        request.atSeq <= BigInt(Number.MAX_SAFE_INTEGER) ? core.auditEntry(Number(request.atSeq)) : undefined;
      if (!entry)
        throw new ConnectError(
          `this log holds no audit entry ${request.atSeq} (newest: ${newest.seq})`,
          Code.NotFound,
        );
      return { head: create(AuditHeadSchema, { seq: BigInt(entry.seq), hash: entry.hash }), newest };
    },
    async sign(request, context) {
      await checkKinds(access, "Sign", context, [request]);
      const outcome = core.decide(request);
      await core.sync();
      if (outcome.ok) return create(SignResponseSchema, { ...outcome.response, auditHead: auditHead(core) });
      const { code, reason, intentId } = outcome.refusal;
      throw refusalError(intentId, code, reason);
    },
    async signBatch(request, context) {
      if (request.requests.length > MAX_BATCH) {
        throw new ConnectError(`at most ${MAX_BATCH} requests per batch`, Code.InvalidArgument);
      }
      await checkKinds(access, "SignBatch", context, request.requests);
      const results = request.requests.map((item) => {
        const outcome = core.decide(item, request.expectEntry ?? item.expectEntry);
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
  };
}

/** The merchants' payout allow-lists. */
function destinationRoutes(
  core: SignerCore,
): Pick<SignerImpl, "requestPayoutDestination" | "cancelPayoutDestination" | "listPayoutDestinations"> {
  return {
    requestPayoutDestination(request) {
      return destinationAnswer(core, () => core.requestPayoutDestination(request));
    },
    cancelPayoutDestination(request) {
      return destinationAnswer(core, () => core.cancelPayoutDestination(request));
    },
    listPayoutDestinations(request) {
      const destinations = core.listPayoutDestinations(request.merchantId);
      return { destinations: destinations.map((d) => create(PayoutDestinationSchema, d)) };
    },
  };
}

export function createSignerServer(options: SignerServerOptions): SignerServer {
  const access = createAccess(options.audit, options.log);
  // The peer certificate is the same for every stream of a session: read it once.
  const callers = new WeakMap<object, Caller>();
  const callerOf = (req: http2.Http2ServerRequest): Caller => {
    if (!options.tls) return { kind: "development" };
    const session = req.stream?.session;
    const known = session && callers.get(session);
    if (known) return known;
    const socket = (session?.socket ?? req.socket) as TLSSocket;
    const caller = callerFromCertificate(socket.getPeerCertificate?.(), { production: options.production });
    if (session) callers.set(session, caller);
    return caller;
  };
  const handler = connectNodeAdapter({
    routes: signerRoutes(options.core, access),
    grpc: true,
    grpcWeb: false,
    connect: false,
    readMaxBytes: 16 * 1024 * 1024,
    // No compression either way: signatures and keys barely compress, gzip would cost the signer's
    // CPU on every batch, and an auditor has one decoder (no decompression bombs) less to read.
    acceptCompression: [],
    contextValues: (req) => createContextValues().set(callerKey, callerOf(req as http2.Http2ServerRequest)),
    requestGate: gate(access),
  });
  let tlsDigest = "";
  const secure = (() => {
    if (!options.tls) return undefined;
    const { options: context, digest } = readTls(options.tls);
    tlsDigest = digest;
    return http2.createSecureServer(
      { ...context, requestCert: true, rejectUnauthorized: true, allowHTTP1: false },
      handler,
    );
  })();
  const server = secure ?? http2.createServer(handler);
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
    reloadTls() {
      if (!options.tls || !secure) return false;
      const { options: context, digest } = readTls(options.tls);
      if (digest === tlsDigest) return false;
      secure.setSecureContext(context);
      tlsDigest = digest;
      for (const session of sessions) session.close();
      return true;
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
