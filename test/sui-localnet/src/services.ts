// The Sui gRPC v2 methods our code calls, answered from the ledger with Sui's default read masks.
import { GrpcTypes } from "@mysten/sui/grpc";
import { normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import { coinObjectType, type StoredCoin } from "./coin-object.js";
import { GrpcCode, GrpcError, type ServiceImplementation, type StreamHandler } from "./grpc-web.js";
import type { Ledger, TransactionRecord } from "./ledger.js";
import { applyReadMask } from "./read-mask.js";
import { TransactionRejected } from "./rejection.js";
import { resolveTransaction } from "./resolve.js";
import { checkpointView, executedTransactionView, objectView, timestamp } from "./views.js";

const OBJECT_DEFAULT = ["object_id", "version", "digest"];
const TRANSACTION_DEFAULT = ["digest"];
const CHECKPOINT_DEFAULT = ["sequence_number", "digest"];
const OWNED_DEFAULT = ["object_id", "version", "object_type"];
const MAX_PAGE = 1000;
const DEFAULT_PAGE = 50;

const paths = (mask: { paths: string[] } | undefined) => mask?.paths;

function normalizeAddress(value: string | undefined, field: string): string {
  if (!value) throw new GrpcError(GrpcCode.INVALID_ARGUMENT, `${field} is required`);
  try {
    return normalizeSuiAddress(value);
  } catch {
    throw new GrpcError(GrpcCode.INVALID_ARGUMENT, `${field} is not an address`);
  }
}

function normalizeType(value: string, field: string): string {
  try {
    return normalizeStructTag(value);
  } catch {
    throw new GrpcError(GrpcCode.INVALID_ARGUMENT, `${field} "${value}" is not a type`);
  }
}

// Page tokens are the offset into a stable, id-ordered listing.
function page<T>(items: readonly T[], pageSize: number | undefined, token: Uint8Array | undefined) {
  const size = Math.min(pageSize && pageSize > 0 ? pageSize : DEFAULT_PAGE, MAX_PAGE);
  const start = token && token.length === 4 ? new DataView(token.buffer, token.byteOffset).getUint32(0) : 0;
  const slice = items.slice(start, start + size);
  let nextPageToken: Uint8Array | undefined;
  if (start + size < items.length) {
    nextPageToken = new Uint8Array(4);
    new DataView(nextPageToken.buffer).setUint32(0, start + size);
  }
  return { slice, nextPageToken };
}

// Ignoring a filter would hand callers checkpoints they believe matched; refusing is safer.
function refuseFilter(filter: unknown): void {
  if (filter !== undefined) {
    throw new GrpcError(
      GrpcCode.UNIMPLEMENTED,
      "transaction filters are not supported here; filter on the client",
    );
  }
}

function rejectionToGrpc(error: unknown): never {
  if (error instanceof TransactionRejected) {
    throw new GrpcError(GrpcCode.INVALID_ARGUMENT, error.message, { cause: error });
  }
  throw error;
}

function transactionBytes(transaction: GrpcTypes.Transaction | undefined): Uint8Array {
  const bytes = transaction?.bcs?.value;
  if (!bytes || bytes.length === 0) {
    throw new GrpcError(
      GrpcCode.UNIMPLEMENTED,
      "this network takes transactions as BCS only: build them fully (sender, gas payment, price, budget, object references) before sending",
    );
  }
  return bytes;
}

export function createServices(ledger: Ledger) {
  const objectOrNotFound = (objectId: string | undefined, version: bigint | undefined): StoredCoin => {
    const id = normalizeAddress(objectId, "object_id");
    const coin = ledger.getObject(id, version);
    if (!coin) {
      throw new GrpcError(
        GrpcCode.NOT_FOUND,
        version === undefined ? `Object ${id} not found` : `Object ${id} at version ${version} not found`,
      );
    }
    return coin;
  };
  const maskedObject = (coin: StoredCoin, mask: string[] | undefined) =>
    applyReadMask(GrpcTypes.Object, objectView(coin), mask, OBJECT_DEFAULT);
  const maskedTransaction = (record: TransactionRecord, mask: string[] | undefined, defaults: string[]) =>
    applyReadMask(
      GrpcTypes.ExecutedTransaction,
      executedTransactionView(record, ledger.epoch),
      mask,
      defaults,
    );
  const checkpointFor = (request: GrpcTypes.GetCheckpointRequest) => {
    const id = request.checkpointId;
    if (id.oneofKind === "sequenceNumber") {
      const checkpoint = ledger.getCheckpoint(id.sequenceNumber);
      if (!checkpoint) throw new GrpcError(GrpcCode.NOT_FOUND, `Checkpoint ${id.sequenceNumber} not found`);
      return checkpoint;
    }
    if (id.oneofKind === "digest") {
      const checkpoint = ledger.getCheckpointByDigest(id.digest);
      if (!checkpoint) throw new GrpcError(GrpcCode.NOT_FOUND, `Checkpoint ${id.digest} not found`);
      return checkpoint;
    }
    return ledger.latestCheckpoint();
  };
  const balanceOf = (owner: string, coinType: string): GrpcTypes.Balance => {
    const total = ledger.ownedCoins(owner, coinType).reduce((sum, coin) => sum + coin.balance, 0n);
    return { coinType, balance: total, coinBalance: total, addressBalance: 0n };
  };

  const ledgerService: ServiceImplementation = {
    GetServiceInfo: (): GrpcTypes.GetServiceInfoResponse => {
      const latest = ledger.latestCheckpoint();
      return {
        chainId: ledger.chainId,
        chain: "localnet",
        epoch: ledger.epoch,
        checkpointHeight: latest.sequenceNumber,
        timestamp: timestamp(latest.timestampMs),
        lowestAvailableCheckpoint: 0n,
        lowestAvailableCheckpointObjects: 0n,
        server: "gateway-sui-localnet",
      };
    },
    GetObject: (input): GrpcTypes.GetObjectResponse => {
      const request = input as GrpcTypes.GetObjectRequest;
      return {
        object: maskedObject(objectOrNotFound(request.objectId, request.version), paths(request.readMask)),
      };
    },
    BatchGetObjects: (input): GrpcTypes.BatchGetObjectsResponse => {
      const request = input as GrpcTypes.BatchGetObjectsRequest;
      const mask = paths(request.readMask);
      return {
        objects: request.requests.map((item): GrpcTypes.GetObjectResult => {
          try {
            return {
              result: {
                oneofKind: "object",
                object: maskedObject(objectOrNotFound(item.objectId, item.version), mask),
              },
            };
          } catch (error) {
            if (!(error instanceof GrpcError)) throw error;
            return {
              result: {
                oneofKind: "error",
                error: { code: error.code, message: error.message, details: [] },
              },
            };
          }
        }),
      };
    },
    GetTransaction: (input): GrpcTypes.GetTransactionResponse => {
      const request = input as GrpcTypes.GetTransactionRequest;
      const record = request.digest ? ledger.getTransaction(request.digest) : undefined;
      if (!record) throw new GrpcError(GrpcCode.NOT_FOUND, `Transaction ${request.digest} not found`);
      return { transaction: maskedTransaction(record, paths(request.readMask), TRANSACTION_DEFAULT) };
    },
    BatchGetTransactions: (input): GrpcTypes.BatchGetTransactionsResponse => {
      const request = input as GrpcTypes.BatchGetTransactionsRequest;
      const mask = paths(request.readMask);
      return {
        transactions: request.digests.map((digest): GrpcTypes.GetTransactionResult => {
          const record = ledger.getTransaction(digest);
          return record
            ? {
                result: {
                  oneofKind: "transaction",
                  transaction: maskedTransaction(record, mask, TRANSACTION_DEFAULT),
                },
              }
            : {
                result: {
                  oneofKind: "error",
                  error: {
                    code: GrpcCode.NOT_FOUND,
                    message: `Transaction ${digest} not found`,
                    details: [],
                  },
                },
              };
        }),
      };
    },
    GetCheckpoint: (input): GrpcTypes.GetCheckpointResponse => {
      const request = input as GrpcTypes.GetCheckpointRequest;
      const checkpoint = checkpointFor(request);
      return {
        checkpoint: applyReadMask(
          GrpcTypes.Checkpoint,
          checkpointView(checkpoint, ledger),
          paths(request.readMask),
          CHECKPOINT_DEFAULT,
        ),
      };
    },
    GetEpoch: (input): GrpcTypes.GetEpochResponse => {
      const request = input as GrpcTypes.GetEpochRequest;
      if (request.epoch !== undefined && request.epoch !== ledger.epoch) {
        throw new GrpcError(GrpcCode.NOT_FOUND, `Epoch ${request.epoch} not found`);
      }
      const epoch: GrpcTypes.Epoch = {
        epoch: ledger.epoch,
        firstCheckpoint: 0n,
        start: timestamp(ledger.genesisTimestampMs),
        referenceGasPrice: ledger.referenceGasPrice,
      };
      return { epoch: applyReadMask(GrpcTypes.Epoch, epoch, paths(request.readMask), ["epoch"]) };
    },
    ListCheckpoints: (async (input, stream) => {
      const request = input as GrpcTypes.ListCheckpointsRequest;
      refuseFilter(request.filter);
      const latest = ledger.latestCheckpoint().sequenceNumber;
      const limit = Math.min(request.options?.limit ?? DEFAULT_PAGE, MAX_PAGE);
      const cursorOf = (sequence: bigint) => {
        const bytes = new Uint8Array(8);
        new DataView(bytes.buffer).setBigUint64(0, sequence);
        return bytes;
      };
      const after = request.options?.after;
      let start = request.startCheckpoint ?? 0n;
      if (after && after.length === 8) {
        const next = new DataView(after.buffer, after.byteOffset).getBigUint64(0) + 1n;
        if (next > start) start = next;
      }
      const end =
        request.endCheckpoint !== undefined && request.endCheckpoint <= latest
          ? request.endCheckpoint
          : latest + 1n;
      let sent = 0;
      for (let sequence = start; sequence < end; sequence++) {
        const checkpoint = ledger.getCheckpoint(sequence)!;
        sent++;
        const reachedLimit = sent >= limit && sequence + 1n < end;
        stream.send({
          checkpoint: applyReadMask(
            GrpcTypes.Checkpoint,
            checkpointView(checkpoint, ledger),
            paths(request.readMask),
            CHECKPOINT_DEFAULT,
          ),
          watermark: { cursor: cursorOf(sequence), checkpoint: sequence },
          end: reachedLimit ? { reason: GrpcTypes.QueryEndReason.ITEM_LIMIT } : undefined,
        } satisfies GrpcTypes.ListCheckpointsResponse);
        if (reachedLimit) return;
      }
      const last = end > start ? end - 1n : start;
      stream.send({
        watermark: { cursor: cursorOf(last), checkpoint: last },
        end: { reason: GrpcTypes.QueryEndReason.CHECKPOINT_BOUND },
      } satisfies GrpcTypes.ListCheckpointsResponse);
    }) satisfies StreamHandler,
  };

  const stateService: ServiceImplementation = {
    ListOwnedObjects: (input): GrpcTypes.ListOwnedObjectsResponse => {
      const request = input as GrpcTypes.ListOwnedObjectsRequest;
      const owner = normalizeAddress(request.owner, "owner");
      let coins = ledger.ownedCoins(owner);
      if (request.objectType) {
        const wanted = normalizeType(request.objectType, "object_type");
        // A type without parameters (`0x2::coin::Coin`) matches every instantiation.
        coins = coins.filter((coin) => {
          const type = coinObjectType(coin.coinType);
          return type === wanted || type.startsWith(`${wanted}<`);
        });
      }
      const { slice, nextPageToken } = page(coins, request.pageSize, request.pageToken);
      return {
        objects: slice.map((coin) =>
          applyReadMask(GrpcTypes.Object, objectView(coin), paths(request.readMask), OWNED_DEFAULT),
        ),
        nextPageToken,
      };
    },
    GetBalance: (input): GrpcTypes.GetBalanceResponse => {
      const request = input as GrpcTypes.GetBalanceRequest;
      const owner = normalizeAddress(request.owner, "owner");
      if (!request.coinType) throw new GrpcError(GrpcCode.INVALID_ARGUMENT, "coin_type is required");
      return { balance: balanceOf(owner, normalizeType(request.coinType, "coin_type")) };
    },
    ListBalances: (input): GrpcTypes.ListBalancesResponse => {
      const request = input as GrpcTypes.ListBalancesRequest;
      const owner = normalizeAddress(request.owner, "owner");
      const types = [...new Set(ledger.ownedCoins(owner).map((coin) => coin.coinType))].sort();
      const { slice, nextPageToken } = page(types, request.pageSize, request.pageToken);
      return { balances: slice.map((coinType) => balanceOf(owner, coinType)), nextPageToken };
    },
    GetCoinInfo: (input): GrpcTypes.GetCoinInfoResponse => {
      const request = input as GrpcTypes.GetCoinInfoRequest;
      const coin = request.coinType ? ledger.coins.byType(request.coinType) : undefined;
      if (!coin) throw new GrpcError(GrpcCode.NOT_FOUND, `Coin type ${request.coinType} not found`);
      return {
        coinType: coin.coinType,
        metadata: {
          decimals: coin.decimals,
          name: coin.name,
          symbol: coin.symbol,
          description: `${coin.name} on the local network`,
        },
      };
    },
  };

  const transactionExecutionService: ServiceImplementation = {
    ExecuteTransaction: async (input): Promise<GrpcTypes.ExecuteTransactionResponse> => {
      const request = input as GrpcTypes.ExecuteTransactionRequest;
      const bytes = transactionBytes(request.transaction);
      const signatures = request.signatures.map((signature) => {
        const value = signature.bcs?.value;
        if (!value) throw new GrpcError(GrpcCode.INVALID_ARGUMENT, "signatures must carry their BCS bytes");
        return value;
      });
      const record = await ledger.execute(bytes, signatures).catch(rejectionToGrpc);
      return {
        transaction: maskedTransaction(record, paths(request.readMask), ["digest", "effects.status"]),
      };
    },
    SimulateTransaction: (input): GrpcTypes.SimulateTransactionResponse => {
      const request = input as GrpcTypes.SimulateTransactionRequest;
      let record: TransactionRecord;
      try {
        // Clients building a transaction send it structured, without BCS, to have it completed.
        const transaction = request.transaction;
        if (!transaction) throw new GrpcError(GrpcCode.INVALID_ARGUMENT, "transaction is required");
        const bytes = transaction.bcs?.value?.length
          ? transaction.bcs.value
          : resolveTransaction(ledger, transaction, { doGasSelection: request.doGasSelection ?? false });
        record = ledger.simulate(bytes);
      } catch (error) {
        rejectionToGrpc(error);
      }
      const response: GrpcTypes.SimulateTransactionResponse = {
        transaction: executedTransactionView(record, ledger.epoch),
        commandOutputs: [],
        suggestedGasPrice: ledger.referenceGasPrice,
      };
      return applyReadMask(GrpcTypes.SimulateTransactionResponse, response, paths(request.readMask), [
        "transaction.digest",
        "transaction.effects.status",
      ]);
    },
  };

  const subscriptionService: ServiceImplementation = {
    SubscribeCheckpoints: (async (input, stream) => {
      const request = input as GrpcTypes.SubscribeCheckpointsRequest;
      refuseFilter(request.filter);
      const mask = paths(request.readMask);
      await new Promise<void>((resolve) => {
        const unsubscribe = ledger.onCheckpoint((checkpoint) => {
          stream.send({
            cursor: checkpoint.sequenceNumber,
            checkpoint: applyReadMask(
              GrpcTypes.Checkpoint,
              checkpointView(checkpoint, ledger),
              mask,
              CHECKPOINT_DEFAULT,
            ),
          } satisfies GrpcTypes.SubscribeCheckpointsResponse);
        });
        stream.signal.addEventListener("abort", () => {
          unsubscribe();
          resolve();
        });
      });
    }) satisfies StreamHandler,
  };

  return [
    { service: GrpcTypes.LedgerService, implementation: ledgerService },
    { service: GrpcTypes.StateService, implementation: stateService },
    { service: GrpcTypes.TransactionExecutionService, implementation: transactionExecutionService },
    { service: GrpcTypes.SubscriptionService, implementation: subscriptionService },
  ];
}
