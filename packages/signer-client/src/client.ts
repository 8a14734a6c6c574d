// The typed client for the signer: gRPC over HTTP/2, mTLS when given certificates.
import { type Client, Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { CHAINS } from "@gateway/contracts";
import {
  DepositIndexIssuedSchema,
  MODE_NAMES,
  MODE_TO_PROTO,
  type ModeName,
  modeFromProto,
  type PayoutDestination,
  RefusalCode,
  RefusalDetailSchema,
  SignerService,
} from "@gateway/signer-proto";
import type { PayoutDestinationInput } from "./approval.js";
import {
  type ApprovalInput,
  CHAIN_TO_PROTO,
  type ChainName,
  chainFromProto,
  type IntentInput,
  toProtoIntent,
} from "./intent.js";

export interface TlsMaterial {
  /** PEM contents (not paths) of the CA that signed the signer's certificate. */
  ca: string | Buffer;
  /** This client's certificate and key, PEM. */
  cert: string | Buffer;
  key: string | Buffer;
}

export interface SignerClientOptions {
  /** "https://host:7443" with tls; "http://host:port" only against a development signer. */
  baseUrl: string;
  tls?: TlsMaterial;
  /** Per call; default 10 s. */
  timeoutMs?: number;
}

export interface SignInput {
  intent: IntentInput;
  /** Solana: the serialized message. Sui: the BCS TransactionData. */
  unsignedTransaction: Uint8Array;
  /** Sui: the BCS of every coin object the transaction takes as input. */
  suiObjects?: Uint8Array[];
}

export interface DetachedSignature {
  address: string;
  /** Raw 64-byte ed25519 signature. */
  signature: Uint8Array;
  /** Sui: the serialized signature (base64) for executeTransaction; "" for Solana. */
  serialized: string;
}

export interface SignedIntent {
  intentId: string;
  signatures: DetachedSignature[];
  /**
   * The transaction the signatures are for: the first one ever signed for this intent id. It
   * differs from the bytes sent when the intent was signed before; send these.
   */
  transaction: Uint8Array;
  /** The signer's audit chain head after the decision. */
  auditHead: AuditHeadValue;
}

export interface AuditHeadValue {
  seq: bigint;
  hash: string;
}

export interface SignOptions {
  /** An audit entry the caller saw: nothing is signed unless the signer's log still holds it. */
  expectEntry?: AuditHeadValue | undefined;
}

export type RefusalCodeName = keyof typeof RefusalCode;

export interface SignerRefusal {
  intentId: string;
  code: RefusalCodeName;
  reason: string;
}

export type SignOutcome = { ok: true; signed: SignedIntent } | { ok: false; refusal: SignerRefusal };

export interface ServiceWallets {
  vault: string;
  gas: string;
}

export type ServiceAddressBook = Record<ChainName, Record<ModeName, ServiceWallets>>;

export class SignerRefusedError extends Error {
  override readonly name = "SignerRefusedError";
  constructor(
    readonly refusal: SignerRefusal,
    options?: ErrorOptions,
  ) {
    super(`signer refused ${refusal.intentId}: ${refusal.code}: ${refusal.reason}`, options);
  }
}

/**
 * The signer handed this deposit index out before (after a restore of PostgreSQL, its sequence is
 * behind): the caller moves past `highestIssued` and asks again.
 */
export class DepositIndexIssuedError extends Error {
  override readonly name = "DepositIndexIssuedError";
  constructor(
    readonly highestIssued: number,
    options?: ErrorOptions,
  ) {
    super(
      `the signer handed this deposit index out before; the highest it handed out is ${highestIssued}`,
      options,
    );
  }
}

/** An address on a merchant's payout allow-list, as the signer keeps it. */
export interface PayoutDestinationEntry {
  merchantId: string;
  chain: ChainName;
  mode: ModeName;
  address: string;
  linked: boolean;
  requestedAt: Date;
  /** Payouts may go here from this time on, unless cancelled. */
  effectiveAt: Date;
  cancelled: boolean;
  cancelledAt: Date | null;
}

export interface DepositAddressRequest {
  chain: ChainName;
  mode: ModeName;
  index: number;
}

export type DepositAddressOutcome = { address: string } | { issued: DepositIndexIssuedError };

export interface SignerClient {
  deriveDepositAddress(request: DepositAddressRequest): Promise<string>;
  /**
   * Many deposit addresses in one call: per request, its address or, for an index handed out
   * before, a DepositIndexIssuedError (returned, not thrown). A signer without the batch call
   * (an older one during a rolling update) is asked one request at a time.
   */
  deriveDepositAddresses(requests: DepositAddressRequest[]): Promise<DepositAddressOutcome[]>;
  getServiceAddresses(): Promise<ServiceAddressBook>;
  /**
   * Throws SignerRefusedError when the signer refuses. With `expectEntry`, the signer signs only
   * if its audit log still holds that exact entry (AUDIT_ENTRY_NOT_HELD otherwise).
   */
  sign(input: SignInput, options?: SignOptions): Promise<SignedIntent>;
  /** One outcome per input, in order; refusals do not throw. */
  signBatch(inputs: SignInput[], options?: SignOptions): Promise<SignOutcome[]>;
  getAuditHead(): Promise<AuditHeadValue>;
  /** Entry `seq` of the signer's audit log as it holds it now; undefined when it holds none. */
  getAuditEntry(seq: bigint): Promise<AuditHeadValue | undefined>;
  /** API role: puts an address on the allow-list (approval from signDestinationApproval). Throws SignerRefusedError. */
  requestPayoutDestination(
    request: PayoutDestinationInput & { approval: ApprovalInput },
  ): Promise<PayoutDestinationEntry>;
  /** API role: takes an address off the allow-list. */
  cancelPayoutDestination(request: Omit<PayoutDestinationInput, "linked">): Promise<PayoutDestinationEntry>;
  /** API role: the merchant's allow-list, cancelled entries included. */
  listPayoutDestinations(merchantId: string): Promise<PayoutDestinationEntry[]>;
  close(): void;
}

function unknownChain(chain: number): never {
  throw new Error(`signer named chain ${chain}, which this client does not know`);
}

function unknownMode(mode: number): never {
  throw new Error(`signer named mode ${mode}, which this client does not know`);
}

function fromProtoDestination(d: PayoutDestination): PayoutDestinationEntry {
  return {
    merchantId: d.merchantId,
    chain: chainFromProto(d.chain) ?? unknownChain(d.chain),
    mode: modeFromProto(d.mode) ?? unknownMode(d.mode),
    address: d.address,
    linked: d.linked,
    requestedAt: new Date(Number(d.requestedAtMs)),
    effectiveAt: new Date(Number(d.effectiveAtMs)),
    cancelled: d.cancelled,
    cancelledAt: d.cancelled ? new Date(Number(d.cancelledAtMs)) : null,
  };
}

/** A refusal with a RefusalDetail becomes SignerRefusedError; anything else is rethrown. */
/** Which allow-list entry a request is about, in the signer's terms. */
function destinationKey(request: Omit<PayoutDestinationInput, "linked">) {
  return {
    merchantId: request.merchantId,
    chain: CHAIN_TO_PROTO[request.chain],
    mode: MODE_TO_PROTO[request.mode],
    address: request.address,
  };
}

/** The entry a request or cancellation left; a refusal as SignerRefusedError. */
async function destinationAnswer(
  call: Promise<{ destination?: PayoutDestination | undefined }>,
): Promise<PayoutDestinationEntry> {
  try {
    const response = await call;
    if (!response.destination) throw new Error("signer returned no destination");
    return fromProtoDestination(response.destination);
  } catch (error) {
    throw refusalFrom(error);
  }
}

function refusalFrom(error: unknown): unknown {
  const connectError = ConnectError.from(error);
  const [detail] = connectError.findDetails(RefusalDetailSchema);
  if (detail && connectError.code !== Code.Unavailable) {
    return new SignerRefusedError(
      { intentId: detail.intentId, code: codeName(detail.code), reason: detail.reason },
      { cause: error },
    );
  }
  return error;
}

function codeName(code: RefusalCode): RefusalCodeName {
  return (RefusalCode[code] ?? "UNSPECIFIED") as RefusalCodeName;
}

function toRequest(input: SignInput) {
  return {
    intent: toProtoIntent(input.intent),
    unsignedTransaction: input.unsignedTransaction,
    objects: (input.suiObjects ?? []).map((bcs) => ({ bcs })),
  };
}

function headOf(head: { seq: bigint; hash: string } | undefined): AuditHeadValue {
  return { seq: head?.seq ?? 0n, hash: head?.hash ?? "" };
}

function toSigned(
  response: { intentId: string; signatures: DetachedSignature[]; transaction: Uint8Array },
  head: { seq: bigint; hash: string } | undefined,
): SignedIntent {
  return {
    intentId: response.intentId,
    transaction: response.transaction,
    auditHead: headOf(head),
    signatures: response.signatures.map(({ address, signature, serialized }) => ({
      address,
      signature,
      serialized,
    })),
  };
}

type SignerRpc = Client<typeof SignerService>;

async function deriveOne(client: SignerRpc, { chain, mode, index }: DepositAddressRequest): Promise<string> {
  try {
    const response = await client.deriveDepositAddress({
      chain: CHAIN_TO_PROTO[chain],
      mode: MODE_TO_PROTO[mode],
      index,
    });
    return response.address;
  } catch (error) {
    const issued = ConnectError.from(error).findDetails(DepositIndexIssuedSchema)[0];
    if (issued) throw new DepositIndexIssuedError(issued.highestIssued, { cause: error });
    throw error;
  }
}

/** In one call; one call each (`one`) against a signer that does not know the batch call. */
async function deriveMany(
  client: SignerRpc,
  requests: readonly DepositAddressRequest[],
  one: (request: DepositAddressRequest) => Promise<string>,
): Promise<DepositAddressOutcome[]> {
  if (requests.length === 0) return [];
  try {
    const response = await client.deriveDepositAddresses({
      requests: requests.map(({ chain, mode, index }) => ({
        chain: CHAIN_TO_PROTO[chain],
        mode: MODE_TO_PROTO[mode],
        index,
      })),
    });
    if (response.results.length !== requests.length)
      throw new Error(`signer answered ${response.results.length} of ${requests.length} derivations`);
    return response.results.map(({ result }): DepositAddressOutcome => {
      if (result.case === "address") return { address: result.value };
      if (result.case === "issued")
        return { issued: new DepositIndexIssuedError(result.value.highestIssued) };
      throw new Error("signer answered a derivation with neither an address nor a refusal");
    });
  } catch (error) {
    if (ConnectError.from(error).code !== Code.Unimplemented) throw error;
    return Promise.all(
      requests.map((request) =>
        one(request).then(
          (address): DepositAddressOutcome => ({ address }),
          (err: unknown): DepositAddressOutcome => {
            if (err instanceof DepositIndexIssuedError) return { issued: err };
            throw err;
          },
        ),
      ),
    );
  }
}

async function serviceAddresses(client: SignerRpc): Promise<ServiceAddressBook> {
  const response = await client.getServiceAddresses({});
  const book: Partial<Record<ChainName, Partial<Record<ModeName, ServiceWallets>>>> = {};
  for (const entry of response.addresses) {
    const chain = chainFromProto(entry.chain);
    const mode = modeFromProto(entry.mode);
    if (!chain || !mode) continue;
    book[chain] = { ...book[chain], [mode]: { vault: entry.vault, gas: entry.gas } };
  }
  for (const chain of CHAINS) {
    for (const mode of MODE_NAMES) {
      if (!book[chain]?.[mode]) throw new Error(`signer did not report ${chain} ${mode} addresses`);
    }
  }
  return book as ServiceAddressBook;
}

async function signBatch(
  client: SignerRpc,
  inputs: readonly SignInput[],
  options: SignOptions,
): Promise<SignOutcome[]> {
  const response = await client.signBatch({
    requests: inputs.map(toRequest),
    expectEntry: options.expectEntry,
  });
  return response.results.map((result, i): SignOutcome => {
    if (result.result.case === "signed")
      return { ok: true, signed: toSigned(result.result.value, response.auditHead) };
    const refused = result.result.value;
    return {
      ok: false,
      refusal: {
        intentId: refused?.intentId ?? inputs[i]?.intent.intentId ?? "",
        code: refused ? codeName(refused.code) : "UNSPECIFIED",
        reason: refused?.reason ?? "no result",
      },
    };
  });
}

export function createSignerClient(options: SignerClientOptions): SignerClient {
  const nodeOptions = options.tls ? { ca: options.tls.ca, cert: options.tls.cert, key: options.tls.key } : {};
  const sessionManager = new Http2SessionManager(options.baseUrl, undefined, nodeOptions);
  const transport = createGrpcTransport({
    baseUrl: options.baseUrl,
    sessionManager,
    defaultTimeoutMs: options.timeoutMs ?? 10_000,
  });
  const client: SignerRpc = createClient(SignerService, transport);

  const signer: SignerClient = {
    deriveDepositAddress: (request) => deriveOne(client, request),
    deriveDepositAddresses: (requests) =>
      deriveMany(client, requests, (request) => signer.deriveDepositAddress(request)),
    getServiceAddresses: () => serviceAddresses(client),

    async sign(input, options = {}) {
      try {
        const response = await client.sign({ ...toRequest(input), expectEntry: options.expectEntry });
        return toSigned(response, response.auditHead);
      } catch (error) {
        throw refusalFrom(error);
      }
    },

    signBatch: (inputs, options = {}) => signBatch(client, inputs, options),

    async getAuditHead() {
      return headOf((await client.getAuditHead({})).head);
    },

    async getAuditEntry(seq) {
      try {
        return headOf((await client.getAuditHead({ atSeq: seq })).head);
      } catch (error) {
        if (ConnectError.from(error).code === Code.NotFound) return undefined;
        throw error;
      }
    },

    requestPayoutDestination: (request) =>
      destinationAnswer(
        client.requestPayoutDestination({
          ...destinationKey(request),
          linked: request.linked,
          approval: { ...request.approval, expiresAtMs: request.approval.expiresAtMs ?? 0n },
        }),
      ),

    cancelPayoutDestination: (request) =>
      destinationAnswer(client.cancelPayoutDestination(destinationKey(request))),

    async listPayoutDestinations(merchantId) {
      const response = await client.listPayoutDestinations({ merchantId });
      return response.destinations.map(fromProtoDestination);
    },

    close() {
      sessionManager.abort();
    },
  };
  return signer;
}
