// Turns the structured transaction that SuiGrpcClient sends to SimulateTransaction while building
// (`tx.build({ client })` with object ids only, or without gas data) into TransactionData BCS:
// object references filled from the store, gas price and budget set, gas coins selected.
import { bcs } from "@mysten/sui/bcs";
import { GrpcTypes } from "@mysten/sui/grpc";
import { normalizeSuiAddress } from "@mysten/sui/utils";
import type { StoredCoin } from "./coin-object.js";
import { GrpcCode, GrpcError } from "./grpc-web.js";
import type { Ledger } from "./ledger.js";

type ArgumentInput = Parameters<typeof bcs.Argument.serialize>[0];

function argument(arg: GrpcTypes.Argument | undefined): ArgumentInput {
  const Kind = GrpcTypes.Argument_ArgumentKind;
  switch (arg?.kind) {
    case Kind.GAS:
      return { GasCoin: true };
    case Kind.INPUT:
      return { Input: arg.input ?? 0 };
    case Kind.RESULT:
      return arg.subresult === undefined
        ? { Result: arg.result ?? 0 }
        : { NestedResult: [arg.result ?? 0, arg.subresult] };
    default:
      throw new GrpcError(GrpcCode.INVALID_ARGUMENT, "argument without a kind");
  }
}

function command(value: GrpcTypes.Command) {
  const { command: body } = value;
  switch (body.oneofKind) {
    case "splitCoins":
      return {
        SplitCoins: { coin: argument(body.splitCoins.coin), amounts: body.splitCoins.amounts.map(argument) },
      };
    case "mergeCoins":
      return {
        MergeCoins: {
          destination: argument(body.mergeCoins.coin),
          sources: body.mergeCoins.coinsToMerge.map(argument),
        },
      };
    case "transferObjects":
      return {
        TransferObjects: {
          objects: body.transferObjects.objects.map(argument),
          address: argument(body.transferObjects.address),
        },
      };
    default:
      throw new GrpcError(GrpcCode.UNIMPLEMENTED, `command ${body.oneofKind} is not supported here`);
  }
}

export function resolveTransaction(
  ledger: Ledger,
  transaction: GrpcTypes.Transaction,
  options: { doGasSelection: boolean },
): Uint8Array {
  const kind = transaction.kind?.data;
  if (kind?.oneofKind !== "programmableTransaction") {
    throw new GrpcError(GrpcCode.UNIMPLEMENTED, "only programmable transactions are supported here");
  }
  if (!transaction.sender) throw new GrpcError(GrpcCode.INVALID_ARGUMENT, "transaction has no sender");
  const sender = normalizeSuiAddress(transaction.sender);
  const usedObjects = new Set<string>();

  const inputs = kind.programmableTransaction.inputs.map((input) => {
    if (input.kind === GrpcTypes.Input_InputKind.PURE)
      return { Pure: { bytes: input.pure ?? new Uint8Array() } };
    if (input.kind !== undefined && input.kind !== GrpcTypes.Input_InputKind.IMMUTABLE_OR_OWNED) {
      throw new GrpcError(
        GrpcCode.UNIMPLEMENTED,
        `input kind ${GrpcTypes.Input_InputKind[input.kind]} is not supported`,
      );
    }
    if (!input.objectId) throw new GrpcError(GrpcCode.INVALID_ARGUMENT, "object input without an id");
    const objectId = normalizeSuiAddress(input.objectId);
    usedObjects.add(objectId);
    // A reference the caller pinned is kept as is (execution will judge it); an id alone is resolved.
    if (input.version !== undefined && input.digest) {
      return { Object: { ImmOrOwnedObject: { objectId, version: input.version, digest: input.digest } } };
    }
    const coin = ledger.getObject(objectId);
    if (!coin) throw new GrpcError(GrpcCode.NOT_FOUND, `Object ${objectId} not found`);
    return { Object: { ImmOrOwnedObject: { objectId, version: coin.version, digest: coin.digest } } };
  });

  const gas = transaction.gasPayment;
  const gasOwner = normalizeSuiAddress(gas?.owner ?? sender);
  const price = gas?.price ?? ledger.referenceGasPrice;
  const fee = price * ledger.computationUnits;
  let payment = (gas?.objects ?? []).map((ref) => ({
    objectId: normalizeSuiAddress(ref.objectId ?? "0x0"),
    version: ref.version ?? 0n,
    digest: ref.digest ?? "",
  }));
  // Real nodes estimate the budget from a dry run; here the fee is fixed, so twice the fee leaves
  // the same kind of headroom while staying within small gas coins.
  let budget = gas?.budget;
  if (payment.length === 0 && options.doGasSelection) {
    const wanted = budget ?? fee * 2n;
    const candidates = ledger
      .ownedCoins(gasOwner, ledger.coins.bySymbol("SUI").coinType)
      .filter((coin) => !usedObjects.has(coin.objectId))
      .sort((a, b) => (a.balance === b.balance ? 0 : a.balance > b.balance ? -1 : 1));
    const selected: StoredCoin[] = [];
    let total = 0n;
    for (const coin of candidates) {
      if (total >= wanted) break;
      selected.push(coin);
      total += coin.balance;
    }
    if (total < fee) {
      throw new GrpcError(
        GrpcCode.FAILED_PRECONDITION,
        `GasBalanceTooLow: ${gasOwner} has ${total} MIST for gas`,
      );
    }
    payment = selected.map(({ objectId, version, digest }) => ({ objectId, version, digest }));
    budget ??= total < wanted ? total : wanted;
  }
  if (payment.length === 0) {
    throw new GrpcError(
      GrpcCode.INVALID_ARGUMENT,
      "MissingGasPayment: no gas payment and no gas selection asked",
    );
  }
  if (budget === undefined) {
    const available = payment.reduce((sum, ref) => sum + (ledger.getObject(ref.objectId)?.balance ?? 0n), 0n);
    budget = available < fee * 2n ? available : fee * 2n;
  }

  return bcs.TransactionData.serialize({
    V1: {
      kind: {
        ProgrammableTransaction: { inputs, commands: kind.programmableTransaction.commands.map(command) },
      },
      sender,
      gasData: { payment, owner: gasOwner, price, budget },
      expiration: { None: true },
    },
  }).toBytes();
}
