// Renders ledger records as the Sui gRPC v2 messages that @mysten/sui ships (full messages; the
// services narrow them with the caller's read mask).
import { GrpcTypes } from "@mysten/sui/grpc";
import { coinObjectType, type StoredCoin } from "./coin-object.js";
import type { ArgumentBcs, ExecutionFailure } from "./executor.js";
import type { CheckpointRecord, Ledger, TransactionRecord } from "./ledger.js";

type ProtoObject = GrpcTypes.Object;
type ProtoValue = NonNullable<ProtoObject["json"]>;

// google.protobuf.Value is not re-exported on its own; the Object message's `json` field knows it.
const jsonField = GrpcTypes.Object.fields.find((field) => field.name === "json") as { T: () => unknown };
const ValueType = jsonField.T() as { fromJson(json: unknown): ProtoValue };

export function timestamp(ms: number): GrpcTypes.ExecutedTransaction["timestamp"] {
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

const addressOwner = (address: string): GrpcTypes.Owner => ({
  kind: GrpcTypes.Owner_OwnerKind.ADDRESS,
  address,
});

export function objectView(coin: StoredCoin): ProtoObject {
  const objectType = coinObjectType(coin.coinType);
  return {
    bcs: { name: "Object", value: coin.bcs },
    objectId: coin.objectId,
    version: coin.version,
    digest: coin.digest,
    owner: addressOwner(coin.owner),
    objectType,
    hasPublicTransfer: true,
    contents: { name: objectType, value: coin.contents },
    previousTransaction: coin.previousTransaction,
    storageRebate: 0n,
    json: ValueType.fromJson({ id: coin.objectId, balance: coin.balance.toString() }),
    balance: coin.balance,
  };
}

function argumentView(arg: ArgumentBcs): GrpcTypes.Argument {
  const Kind = GrpcTypes.Argument_ArgumentKind;
  if (arg.GasCoin) return { kind: Kind.GAS };
  if (arg.Input !== undefined) return { kind: Kind.INPUT, input: arg.Input };
  if (arg.Result !== undefined) return { kind: Kind.RESULT, result: arg.Result };
  const [result, subresult] = arg.NestedResult!;
  return { kind: Kind.RESULT, result, subresult };
}

function transactionKindView(record: TransactionRecord): GrpcTypes.TransactionKind | undefined {
  const ptb = record.data.kind.ProgrammableTransaction;
  if (!ptb) return undefined;
  const inputs: GrpcTypes.Input[] = ptb.inputs.map((input) => {
    if (input.Pure) {
      return { kind: GrpcTypes.Input_InputKind.PURE, pure: Buffer.from(input.Pure.bytes, "base64") };
    }
    const ref = input.Object?.ImmOrOwnedObject;
    return {
      kind: GrpcTypes.Input_InputKind.IMMUTABLE_OR_OWNED,
      objectId: ref?.objectId,
      version: ref ? BigInt(ref.version) : undefined,
      digest: ref?.digest,
    };
  });
  const commands: GrpcTypes.Command[] = ptb.commands.map((command) => {
    if (command.SplitCoins) {
      return {
        command: {
          oneofKind: "splitCoins",
          splitCoins: {
            coin: argumentView(command.SplitCoins.coin),
            amounts: command.SplitCoins.amounts.map(argumentView),
          },
        },
      };
    }
    if (command.MergeCoins) {
      return {
        command: {
          oneofKind: "mergeCoins",
          mergeCoins: {
            coin: argumentView(command.MergeCoins.destination),
            coinsToMerge: command.MergeCoins.sources.map(argumentView),
          },
        },
      };
    }
    const transfer = command.TransferObjects!;
    return {
      command: {
        oneofKind: "transferObjects",
        transferObjects: {
          objects: transfer.objects.map(argumentView),
          address: argumentView(transfer.address),
        },
      },
    };
  });
  return {
    kind: GrpcTypes.TransactionKind_Kind.PROGRAMMABLE_TRANSACTION,
    data: { oneofKind: "programmableTransaction", programmableTransaction: { inputs, commands } },
  };
}

export function transactionView(record: TransactionRecord): GrpcTypes.Transaction {
  const gas = record.data.gasData;
  return {
    bcs: { name: "TransactionData", value: record.bcs },
    digest: record.digest,
    version: 1,
    kind: transactionKindView(record),
    sender: record.data.sender,
    gasPayment: {
      objects: gas.payment.map((ref) => ({
        objectId: ref.objectId,
        version: BigInt(ref.version),
        digest: ref.digest,
      })),
      owner: gas.owner,
      price: BigInt(gas.price),
      budget: BigInt(gas.budget),
    },
    expiration: { kind: GrpcTypes.TransactionExpiration_TransactionExpirationKind.NONE },
  };
}

function signatureView(signature: Uint8Array): GrpcTypes.UserSignature {
  const flag = signature[0];
  // Simple signatures are flag || signature (64 bytes) || public key.
  const scheme =
    flag === 0
      ? GrpcTypes.SignatureScheme.ED25519
      : flag === 1
        ? GrpcTypes.SignatureScheme.SECP256K1
        : flag === 2
          ? GrpcTypes.SignatureScheme.SECP256R1
          : undefined;
  if (scheme === undefined)
    return { bcs: { name: "UserSignature", value: signature }, signature: { oneofKind: undefined } };
  return {
    bcs: { name: "UserSignature", value: signature },
    scheme,
    signature: {
      oneofKind: "simple",
      simple: { scheme, signature: signature.subarray(1, 65), publicKey: signature.subarray(65) },
    },
  };
}

function failureView(failure: ExecutionFailure): GrpcTypes.ExecutionError {
  const Kind = GrpcTypes.ExecutionError_ExecutionErrorKind;
  if (failure.kind === "AddressDeniedForCoin") {
    return {
      description: `Address ${failure.address} is denied for coin type ${failure.coinType}`,
      kind: Kind.ADDRESS_DENIED_FOR_COIN,
      errorDetails: {
        oneofKind: "coinDenyListError",
        coinDenyListError: { address: failure.address, coinType: failure.coinType },
      },
    };
  }
  const command = BigInt(failure.command);
  switch (failure.kind) {
    case "InsufficientCoinBalance":
      return {
        description: "Insufficient coin balance for operation.",
        command,
        kind: Kind.INSUFFICIENT_COIN_BALANCE,
        errorDetails: { oneofKind: undefined },
      };
    case "CoinBalanceOverflow":
      return {
        description: "The coin balance overflows u64",
        command,
        kind: Kind.COIN_BALANCE_OVERFLOW,
        errorDetails: { oneofKind: undefined },
      };
    case "UnusedValueWithoutDrop":
      return {
        description: `Unused result without the drop ability. Command result ${failure.resultIdx}, return value ${failure.secondaryIdx}`,
        command,
        kind: Kind.UNUSED_VALUE_WITHOUT_DROP,
        errorDetails: { oneofKind: undefined },
      };
    case "CommandArgumentError": {
      const ArgKind = GrpcTypes.CommandArgumentError_CommandArgumentErrorKind;
      const kinds = {
        TypeMismatch: ArgKind.TYPE_MISMATCH,
        InvalidValueUsage: ArgKind.INVALID_VALUE_USAGE,
        InvalidGasCoinUsage: ArgKind.INVALID_GAS_COIN_USAGE,
        InvalidResultArity: ArgKind.INVALID_RESULT_ARITY,
      } as const;
      return {
        description: `Invalid command argument at ${failure.argument}. ${failure.error}`,
        command,
        kind: Kind.COMMAND_ARGUMENT_ERROR,
        errorDetails: {
          oneofKind: "commandArgumentError",
          commandArgumentError: { argument: failure.argument, kind: kinds[failure.error] },
        },
      };
    }
  }
}

export function effectsView(record: TransactionRecord, epoch: bigint): GrpcTypes.TransactionEffects {
  const { outcome } = record;
  const State = GrpcTypes.ChangedObject_InputObjectState;
  const Out = GrpcTypes.ChangedObject_OutputObjectState;
  const Op = GrpcTypes.ChangedObject_IdOperation;
  const changed = outcome.changes.map(
    (change): GrpcTypes.ChangedObject => ({
      objectId: change.objectId,
      inputState: change.input ? State.EXISTS : State.DOES_NOT_EXIST,
      inputVersion: change.input?.version,
      inputDigest: change.input?.digest,
      inputOwner: change.input ? addressOwner(change.input.owner) : undefined,
      outputState: change.output ? Out.OBJECT_WRITE : Out.DOES_NOT_EXIST,
      outputVersion: change.output?.version,
      outputDigest: change.output?.digest,
      outputOwner: change.output ? addressOwner(change.output.owner) : undefined,
      idOperation:
        change.idOperation === "Created"
          ? Op.CREATED
          : change.idOperation === "Deleted"
            ? Op.DELETED
            : Op.NONE,
      objectType: coinObjectType((change.output ?? change.input)!.coinType),
    }),
  );
  return {
    bcs: { name: "TransactionEffects", value: record.effects.bcs },
    digest: record.effects.digest,
    version: 2,
    status: outcome.failure ? { success: false, error: failureView(outcome.failure) } : { success: true },
    epoch,
    gasUsed: {
      computationCost: outcome.computationCost,
      storageCost: 0n,
      storageRebate: 0n,
      nonRefundableStorageFee: 0n,
    },
    transactionDigest: record.digest,
    gasObject: changed.find((change) => change.objectId === outcome.gasObjectId),
    dependencies: outcome.dependencies,
    lamportVersion: outcome.lamportVersion,
    changedObjects: changed,
    unchangedConsensusObjects: [],
    unchangedLoadedRuntimeObjects: [],
  };
}

export function executedTransactionView(
  record: TransactionRecord,
  epoch: bigint,
): GrpcTypes.ExecutedTransaction {
  const objects: ProtoObject[] = [];
  for (const change of record.outcome.changes) {
    if (change.input) objects.push(objectView(change.input));
    if (change.output) objects.push(objectView(change.output));
  }
  return {
    digest: record.digest,
    transaction: transactionView(record),
    signatures: record.signatures.map(signatureView),
    effects: effectsView(record, epoch),
    checkpoint: record.checkpoint,
    timestamp: record.timestampMs === undefined ? undefined : timestamp(record.timestampMs),
    balanceChanges: record.outcome.balanceChanges.map((change) => ({
      address: change.address,
      coinType: change.coinType,
      amount: change.amount.toString(),
    })),
    objects: { objects },
    transactionIndex: record.transactionIndex,
  };
}

const checkpointCache = new WeakMap<CheckpointRecord, GrpcTypes.Checkpoint>();

/** Sealed checkpoints never change, so each is rendered once. */
export function checkpointView(
  checkpoint: CheckpointRecord,
  ledger: Pick<Ledger, "epoch">,
): GrpcTypes.Checkpoint {
  const cached = checkpointCache.get(checkpoint);
  if (cached) return cached;
  const transactions = checkpoint.transactions.map((tx) => executedTransactionView(tx, ledger.epoch));
  const view: GrpcTypes.Checkpoint = {
    sequenceNumber: checkpoint.sequenceNumber,
    digest: checkpoint.digest,
    summary: {
      bcs: { name: "CheckpointSummary", value: checkpoint.summaryBcs },
      digest: checkpoint.digest,
      epoch: ledger.epoch,
      sequenceNumber: checkpoint.sequenceNumber,
      totalNetworkTransactions: checkpoint.networkTotalTransactions,
      contentDigest: checkpoint.contents.digest,
      previousDigest: checkpoint.previousDigest,
      epochRollingGasCostSummary: checkpoint.rollingGas,
      timestamp: timestamp(checkpoint.timestampMs),
      commitments: [],
    },
    contents: {
      bcs: { name: "CheckpointContents", value: checkpoint.contents.bcs },
      digest: checkpoint.contents.digest,
      version: 1,
      transactions: checkpoint.transactions.map((tx) => ({
        transaction: tx.digest,
        effects: tx.effects.digest,
        signatures: tx.signatures.map(signatureView),
        addressAliasesVersions: [],
      })),
    },
    transactions,
    objects: { objects: transactions.flatMap((tx) => tx.objects?.objects ?? []) },
  };
  checkpointCache.set(checkpoint, view);
  return view;
}
