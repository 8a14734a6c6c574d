// Transaction fees as the validator computes them: 5,000 lamports a signature plus the
// priority fee (compute-unit price × compute-unit limit, in micro-lamports, rounded up).
import type { VersionedMessage } from "@solana/web3.js";
import { COMPUTE_BUDGET_PROGRAM_ID } from "./token.js";

export const LAMPORTS_PER_SIGNATURE = 5000n;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
// Since SIMD-0170 a builtin program's instruction reserves 3,000 units by default and any
// other program's 200,000 (litesvm charges the same).
const BUILTIN_DEFAULT_UNITS = 3_000n;
const PROGRAM_DEFAULT_UNITS = 200_000n;
const BUILTINS = new Set([
  "11111111111111111111111111111111",
  COMPUTE_BUDGET_PROGRAM_ID,
  "Vote111111111111111111111111111111111111111",
  "Stake11111111111111111111111111111111111111",
  "Config1111111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  "BPFLoaderUpgradeab1e11111111111111111111111",
  "LoaderV411111111111111111111111111111111111",
  "AddressLookupTab1e1111111111111111111111111",
]);

export function computeFee(message: VersionedMessage, keys: readonly string[]): bigint {
  let unitLimit: bigint | null = null;
  let unitPrice = 0n;
  let defaultUnits = 0n;
  for (const ix of message.compiledInstructions) {
    const program = keys[ix.programIdIndex] ?? "";
    defaultUnits += BUILTINS.has(program) ? BUILTIN_DEFAULT_UNITS : PROGRAM_DEFAULT_UNITS;
    if (program !== COMPUTE_BUDGET_PROGRAM_ID) continue;
    const data = Buffer.from(ix.data);
    if (data[0] === 2 && data.length >= 5) unitLimit = BigInt(data.readUInt32LE(1));
    if (data[0] === 3 && data.length >= 9) unitPrice = data.readBigUInt64LE(1);
  }
  const limit = unitLimit ?? defaultUnits;
  const capped = limit > MAX_COMPUTE_UNIT_LIMIT ? MAX_COMPUTE_UNIT_LIMIT : limit;
  const priority = (unitPrice * capped + 999_999n) / 1_000_000n;
  return BigInt(message.header.numRequiredSignatures) * LAMPORTS_PER_SIGNATURE + priority;
}
