// Executes the programmable transactions our services build (SplitCoins, MergeCoins and
// TransferObjects over coins, with GasCoin usable as an argument) against the object store,
// following Sui's rules: gas coins are smashed into the first, the budget is reserved up front,
// every input is written at the lamport version, and a failed command reverts all but the gas fee.
// Regulated coins' deny list: a denied address cannot spend the coin (rejected) nor receive it
// (the transaction fails at execution, AddressDeniedForCoin, as under Sui's deny list v2).
import { bcs } from "@mysten/sui/bcs";
import { fromBase64, normalizeSuiAddress } from "@mysten/sui/utils";
import { type StoredCoin, storeCoin } from "./coin-object.js";
import { deriveObjectId } from "./digests.js";
import { TransactionRejected } from "./rejection.js";

export type TransactionDataV1 = NonNullable<ReturnType<typeof bcs.TransactionData.parse>["V1"]>;
export type ArgumentBcs = ReturnType<typeof bcs.Argument.parse>;
type Argument = ArgumentBcs;
type Command = ReturnType<typeof bcs.Command.parse>;

export type ExecutionFailure =
  | { kind: "InsufficientCoinBalance"; command: number }
  | { kind: "CoinBalanceOverflow"; command: number }
  | {
      kind: "CommandArgumentError";
      command: number;
      argument: number;
      error: "TypeMismatch" | "InvalidValueUsage" | "InvalidGasCoinUsage" | "InvalidResultArity";
    }
  | { kind: "UnusedValueWithoutDrop"; command: number; resultIdx: number; secondaryIdx: number }
  /** Found after the commands ran, so no command is named. */
  | { kind: "AddressDeniedForCoin"; command: null; address: string; coinType: string };

export interface ObjectChange {
  objectId: string;
  input?: StoredCoin;
  output?: StoredCoin;
  idOperation: "None" | "Created" | "Deleted";
}

export interface BalanceChangeRecord {
  address: string;
  coinType: string;
  amount: bigint;
}

export interface ExecutionOutcome {
  failure?: ExecutionFailure;
  computationCost: bigint;
  lamportVersion: bigint;
  /** Sorted by object id, as Sui's effects list them. */
  changes: ObjectChange[];
  gasObjectId: string;
  balanceChanges: BalanceChangeRecord[];
  dependencies: string[];
}

export interface ExecutionContext {
  digest: string;
  data: TransactionDataV1;
  getCoin(objectId: string): StoredCoin | undefined;
  referenceGasPrice: bigint;
  /** Computation units charged per transaction; the fee is units × gas price. */
  computationUnits: bigint;
  suiType: string;
  /** Whether the coin type's deny list holds the address. */
  denied(address: string, coinType: string): boolean;
}

interface WorkingCoin {
  objectId: string;
  coinType: string;
  balance: bigint;
  owner: string;
  input?: StoredCoin;
  deleted: boolean;
}

class Failure extends Error {
  constructor(readonly failure: ExecutionFailure) {
    super(failure.kind);
  }
}

type Value = { kind: "coin"; objectId: string } | { kind: "pure"; bytes: Uint8Array };

function checkOwnedInput(
  ref: { objectId: string; version: string; digest: string },
  owner: string,
  context: ExecutionContext,
  role: string,
): StoredCoin {
  const coin = context.getCoin(normalizeSuiAddress(ref.objectId));
  if (!coin) throw new TransactionRejected("ObjectNotFound", `${role} object ${ref.objectId} does not exist`);
  if (coin.version !== BigInt(ref.version)) {
    throw new TransactionRejected(
      "ObjectVersionUnavailableForConsumption",
      `${role} object ${coin.objectId} version ${ref.version} is not available, current version ${coin.version}`,
    );
  }
  if (coin.digest !== ref.digest) {
    throw new TransactionRejected(
      "InvalidObjectDigest",
      `${role} object ${coin.objectId} digest ${ref.digest} does not match ${coin.digest}`,
    );
  }
  if (coin.owner !== owner) {
    throw new TransactionRejected(
      "IncorrectUserSignature",
      `${role} object ${coin.objectId} is owned by ${coin.owner}, not by ${owner}`,
    );
  }
  return coin;
}

/** Checks a transaction against the store and runs it; throws TransactionRejected before any change. */
export function executeTransaction(context: ExecutionContext): ExecutionOutcome {
  const { data, digest } = context;
  const sender = normalizeSuiAddress(data.sender);
  const gasOwner = normalizeSuiAddress(data.gasData.owner);
  const price = BigInt(data.gasData.price);
  const budget = BigInt(data.gasData.budget);
  const fee = price * context.computationUnits;

  const ptb = data.kind.ProgrammableTransaction;
  if (!ptb)
    throw new TransactionRejected(
      "UnsupportedFeature",
      `transaction kind ${data.kind.$kind} is not supported`,
    );
  for (const command of ptb.commands) {
    if (!command.SplitCoins && !command.MergeCoins && !command.TransferObjects) {
      throw new TransactionRejected("UnsupportedFeature", `command ${command.$kind} is not supported here`);
    }
  }
  if (data.gasData.payment.length === 0) {
    throw new TransactionRejected(
      "MissingGasPayment",
      "gas paid from an address balance is not supported here",
    );
  }
  if (price < context.referenceGasPrice) {
    throw new TransactionRejected(
      "GasPriceUnderRGP",
      `gas price ${price} is under ${context.referenceGasPrice}`,
    );
  }
  if (budget < fee) {
    throw new TransactionRejected("GasBudgetTooLow", `gas budget ${budget} is lower than the minimum ${fee}`);
  }

  const seen = new Set<string>();
  const gasCoins = data.gasData.payment.map((ref) => {
    const coin = checkOwnedInput(ref, gasOwner, context, "gas");
    if (seen.has(coin.objectId)) throw new TransactionRejected("DuplicateObjectRefInput", coin.objectId);
    seen.add(coin.objectId);
    if (coin.coinType !== context.suiType) {
      throw new TransactionRejected("InvalidGasObject", `gas object ${coin.objectId} is not a Coin<SUI>`);
    }
    return coin;
  });
  const gasBalance = gasCoins.reduce((sum, coin) => sum + coin.balance, 0n);
  if (gasBalance < budget) {
    throw new TransactionRejected(
      "GasBalanceTooLow",
      `gas balance ${gasBalance} is lower than the budget ${budget}`,
    );
  }

  const inputs: Array<Value | StoredCoin> = ptb.inputs.map((input, index) => {
    if (input.Pure) return { kind: "pure", bytes: fromBase64(input.Pure.bytes) } as Value;
    const owned = input.Object?.ImmOrOwnedObject;
    if (!owned) {
      throw new TransactionRejected(
        "UnsupportedFeature",
        `input ${index} (${input.$kind}) is not supported here`,
      );
    }
    const coin = checkOwnedInput(owned, sender, context, "input");
    if (context.denied(coin.owner, coin.coinType)) {
      throw new TransactionRejected("AddressDeniedForCoin", `${coin.owner} is denied ${coin.coinType}`);
    }
    if (seen.has(coin.objectId)) throw new TransactionRejected("DuplicateObjectRefInput", coin.objectId);
    seen.add(coin.objectId);
    return coin;
  });
  const inputCoins = [...gasCoins, ...inputs.filter((input): input is StoredCoin => "digest" in input)];
  // Versions are bigint, which Math.max does not take.
  let highestVersion = 0n;
  for (const coin of inputCoins) if (coin.version > highestVersion) highestVersion = coin.version;
  const lamportVersion = highestVersion + 1n;
  const gasObjectId = gasCoins[0]!.objectId;

  // Gas smashing: the first payment coin absorbs the others, then the budget is held back.
  const initial = (): Map<string, WorkingCoin> => {
    const coins = new Map<string, WorkingCoin>();
    for (const coin of inputCoins) {
      coins.set(coin.objectId, { ...coin, input: coin, deleted: false });
    }
    for (const coin of gasCoins.slice(1)) coins.get(coin.objectId)!.deleted = true;
    coins.get(gasObjectId)!.balance = gasBalance - budget;
    return coins;
  };

  let coins = initial();
  let failure: ExecutionFailure | undefined;
  try {
    runCommands(ptb.commands, inputs, coins, gasObjectId, context);
    checkReceivers(coins, context);
  } catch (error) {
    if (!(error instanceof Failure)) throw error;
    failure = error.failure;
    coins = initial();
  }
  const gas = coins.get(gasObjectId)!;
  gas.balance += budget - fee;

  const changes: ObjectChange[] = [];
  for (const coin of coins.values()) {
    if (coin.deleted && !coin.input) continue;
    const output = coin.deleted
      ? undefined
      : storeCoin({
          objectId: coin.objectId,
          version: lamportVersion,
          owner: coin.owner,
          coinType: coin.coinType,
          balance: coin.balance,
          previousTransaction: digest,
        });
    const idOperation = !coin.input ? "Created" : coin.deleted ? "Deleted" : "None";
    changes.push({ objectId: coin.objectId, input: coin.input, output, idOperation });
  }
  changes.sort((a, b) => (a.objectId < b.objectId ? -1 : a.objectId > b.objectId ? 1 : 0));

  return {
    failure,
    computationCost: fee,
    lamportVersion,
    changes,
    gasObjectId,
    balanceChanges: balanceChangesOf(changes),
    dependencies: [...new Set(inputCoins.map((coin) => coin.previousTransaction))].sort(),
  };
}

function runCommands(
  commands: readonly Command[],
  inputs: Array<Value | StoredCoin>,
  coins: Map<string, WorkingCoin>,
  gasObjectId: string,
  context: ExecutionContext,
): void {
  const results: Value[][] = [];
  // Values taken by value (transferred, merged away) cannot be used by a later command.
  const moved = new Set<string>();
  const created: Array<{ objectId: string; resultIdx: number; secondaryIdx: number }> = [];
  let creationIndex = 0;

  commands.forEach((command, commandIndex) => {
    const argError = (
      argument: number,
      error: "TypeMismatch" | "InvalidValueUsage" | "InvalidGasCoinUsage" | "InvalidResultArity",
    ) => new Failure({ kind: "CommandArgumentError", command: commandIndex, argument, error });

    const resolveMany = (arg: Argument, argument: number): Value[] => {
      if (arg.GasCoin) return [{ kind: "coin", objectId: gasObjectId }];
      if (arg.Input !== undefined) {
        const input = inputs[arg.Input];
        if (!input) throw argError(argument, "InvalidValueUsage");
        return ["digest" in input ? { kind: "coin", objectId: input.objectId } : input];
      }
      if (arg.Result !== undefined) {
        const result = results[arg.Result];
        if (!result) throw argError(argument, "InvalidValueUsage");
        return result;
      }
      if (arg.NestedResult) {
        const [resultIdx, secondary] = arg.NestedResult;
        const value = results[resultIdx]?.[secondary];
        if (!value) throw argError(argument, "InvalidValueUsage");
        return [value];
      }
      throw argError(argument, "InvalidValueUsage");
    };
    const resolveOne = (arg: Argument, argument: number): Value => {
      const values = resolveMany(arg, argument);
      if (values.length !== 1) throw argError(argument, "InvalidResultArity");
      return values[0]!;
    };
    const liveCoin = (value: Value, argument: number): WorkingCoin => {
      if (value.kind !== "coin") throw argError(argument, "TypeMismatch");
      const coin = coins.get(value.objectId);
      if (!coin || coin.deleted || moved.has(coin.objectId)) throw argError(argument, "InvalidValueUsage");
      return coin;
    };
    const pure = (value: Value, argument: number): Uint8Array => {
      if (value.kind !== "pure") throw argError(argument, "TypeMismatch");
      return value.bytes;
    };
    const consumed = (objectId: string) => {
      const index = created.findIndex((entry) => entry.objectId === objectId);
      if (index >= 0) created.splice(index, 1);
    };

    if (command.SplitCoins) {
      const source = liveCoin(resolveOne(command.SplitCoins.coin, 0), 0);
      const outputs: Value[] = [];
      command.SplitCoins.amounts.forEach((amountArg, index) => {
        let amount: bigint;
        try {
          amount = BigInt(bcs.u64().parse(pure(resolveOne(amountArg, index + 1), index + 1)));
        } catch (error) {
          if (error instanceof Failure) throw error;
          throw argError(index + 1, "TypeMismatch");
        }
        if (source.balance < amount) {
          throw new Failure({ kind: "InsufficientCoinBalance", command: commandIndex });
        }
        source.balance -= amount;
        const objectId = deriveObjectId(context.digest, creationIndex++);
        coins.set(objectId, {
          objectId,
          coinType: source.coinType,
          balance: amount,
          owner: "",
          deleted: false,
        });
        created.push({ objectId, resultIdx: commandIndex, secondaryIdx: index });
        outputs.push({ kind: "coin", objectId });
      });
      results[commandIndex] = outputs;
      return;
    }

    if (command.MergeCoins) {
      const destination = liveCoin(resolveOne(command.MergeCoins.destination, 0), 0);
      command.MergeCoins.sources.forEach((sourceArg, index) => {
        if (sourceArg.GasCoin) throw argError(index + 1, "InvalidGasCoinUsage");
        for (const value of resolveMany(sourceArg, index + 1)) {
          const source = liveCoin(value, index + 1);
          if (source.objectId === destination.objectId) throw argError(index + 1, "InvalidValueUsage");
          if (source.coinType !== destination.coinType) throw argError(index + 1, "TypeMismatch");
          destination.balance += source.balance;
          if (destination.balance >= 2n ** 64n) {
            throw new Failure({ kind: "CoinBalanceOverflow", command: commandIndex });
          }
          source.deleted = true;
          moved.add(source.objectId);
          consumed(source.objectId);
        }
      });
      results[commandIndex] = [];
      return;
    }

    if (command.TransferObjects) {
      const { objects, address } = command.TransferObjects;
      let recipient: string;
      try {
        recipient = bcs.Address.parse(pure(resolveOne(address, objects.length), objects.length));
      } catch (error) {
        if (error instanceof Failure) throw error;
        throw argError(objects.length, "TypeMismatch");
      }
      objects.forEach((objectArg, index) => {
        for (const value of resolveMany(objectArg, index)) {
          const coin = liveCoin(value, index);
          moved.add(coin.objectId);
          coin.owner = recipient;
          consumed(coin.objectId);
        }
      });
      results[commandIndex] = [];
    }
  });

  // Coin<T> has no `drop`: a split coin nobody transferred or merged aborts the transaction.
  const unused = created[0];
  if (unused) {
    throw new Failure({
      kind: "UnusedValueWithoutDrop",
      command: unused.resultIdx,
      resultIdx: unused.resultIdx,
      secondaryIdx: unused.secondaryIdx,
    });
  }
}

/** A coin that changed hands to an address its type's deny list holds fails the transaction. */
function checkReceivers(coins: Map<string, WorkingCoin>, context: ExecutionContext): void {
  for (const coin of coins.values()) {
    if (coin.deleted || coin.owner === coin.input?.owner) continue;
    if (context.denied(coin.owner, coin.coinType)) {
      throw new Failure({
        kind: "AddressDeniedForCoin",
        command: null,
        address: coin.owner,
        coinType: coin.coinType,
      });
    }
  }
}

function balanceChangesOf(changes: readonly ObjectChange[]): BalanceChangeRecord[] {
  const totals = new Map<string, BalanceChangeRecord>();
  const add = (address: string, coinType: string, amount: bigint) => {
    const key = `${address}|${coinType}`;
    const entry = totals.get(key) ?? { address, coinType, amount: 0n };
    entry.amount += amount;
    totals.set(key, entry);
  };
  for (const change of changes) {
    if (change.input) add(change.input.owner, change.input.coinType, -change.input.balance);
    if (change.output) add(change.output.owner, change.output.coinType, change.output.balance);
  }
  return [...totals.values()]
    .filter((entry) => entry.amount !== 0n)
    .sort((a, b) =>
      a.address === b.address ? (a.coinType < b.coinType ? -1 : 1) : a.address < b.address ? -1 : 1,
    );
}
