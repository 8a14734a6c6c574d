// The `costUnits` a node reports in a transaction's status meta: what the transaction counted
// against the block's cost limit, in the terms of the validator's cost model (signatures, write
// locks, instruction data, then the compute units it used). The real figure adds a charge for
// the account data it loaded, which this network does not track, so ours can be a few tens of
// units lower on the same transaction; callers read it as a figure, never to the unit.
import type { VersionedTransaction } from "@solana/web3.js";

const PER_SIGNATURE = 720;
const PER_WRITE_LOCK = 300;
const INSTRUCTION_DATA_BYTES_PER_UNIT = 4;

export function costUnits(transaction: VersionedTransaction, computeUnitsConsumed: number): number {
  const { message } = transaction;
  let writeLocks = 0;
  for (let index = 0; index < message.staticAccountKeys.length; index++) {
    if (message.isAccountWritable(index)) writeLocks++;
  }
  const dataBytes = message.compiledInstructions.reduce((sum, ix) => sum + ix.data.length, 0);
  return (
    PER_SIGNATURE * message.header.numRequiredSignatures +
    PER_WRITE_LOCK * writeLocks +
    Math.floor(dataBytes / INSTRUCTION_DATA_BYTES_PER_UNIT) +
    computeUnitsConsumed
  );
}
