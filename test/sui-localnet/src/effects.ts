// TransactionEffects V2 in Sui's BCS layout, so the effects digest and `effects.bcs` are what
// a validator would produce for the same changes.
import { bcs } from "@mysten/sui/bcs";
import { effectsDigest } from "./digests.js";
import type { ExecutionFailure, ExecutionOutcome } from "./executor.js";

function failureBcs(failure: ExecutionFailure) {
  switch (failure.kind) {
    case "InsufficientCoinBalance":
      return { InsufficientCoinBalance: true as const };
    case "CoinBalanceOverflow":
      return { CoinBalanceOverflow: true as const };
    case "CommandArgumentError":
      return { CommandArgumentError: { argIdx: failure.argument, kind: { [failure.error]: true } } };
    case "UnusedValueWithoutDrop":
      return { UnusedValueWithoutDrop: { resultIdx: failure.resultIdx, secondaryIdx: failure.secondaryIdx } };
    case "AddressDeniedForCoin":
      return { AddressDeniedForCoin: { address: failure.address, coinType: failure.coinType } };
    default:
      return assertNever(failure);
  }
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}

export function encodeEffects(
  transactionDigest: string,
  outcome: ExecutionOutcome,
  epoch: bigint,
): { bcs: Uint8Array; digest: string } {
  const bytes = bcs.TransactionEffects.serialize({
    V2: {
      status: outcome.failure
        ? {
            Failure: {
              error: failureBcs(outcome.failure),
              command: outcome.failure.command === null ? null : BigInt(outcome.failure.command),
            },
          }
        : { Success: true },
      executedEpoch: epoch,
      gasUsed: {
        computationCost: outcome.computationCost,
        storageCost: 0n,
        storageRebate: 0n,
        nonRefundableStorageFee: 0n,
      },
      transactionDigest,
      gasObjectIndex: outcome.changes.findIndex((change) => change.objectId === outcome.gasObjectId),
      eventsDigest: null,
      dependencies: outcome.dependencies,
      lamportVersion: outcome.lamportVersion,
      changedObjects: outcome.changes.map((change) => [
        change.objectId,
        {
          inputState: change.input
            ? { Exist: [[change.input.version, change.input.digest], { AddressOwner: change.input.owner }] }
            : { NotExist: true },
          outputState: change.output
            ? { ObjectWrite: [change.output.digest, { AddressOwner: change.output.owner }] }
            : { NotExist: true },
          idOperation: { [change.idOperation]: true },
        },
      ]),
      unchangedConsensusObjects: [],
      auxDataDigest: null,
    },
    // The enum input types are unions the compiler cannot narrow from our record; the
    // serializer validates the shape at run time.
  } as never).toBytes();
  return { bcs: bytes, digest: effectsDigest(bytes) };
}
