// The addresses the signer hands out (deposits, vault and gas wallets): outside the decision core,
// as it signs nothing, but each deposit index goes out once, ever, whatever PostgreSQL's sequence
// says after a restore (docs/operations.md, "Restoring PostgreSQL").

import {
  type Chain,
  MODE_NAMES,
  MODE_TO_PROTO,
  type Mode,
  type ModeName,
  modeFromProto,
  type ServiceAddresses,
} from "@gateway/signer-proto";
import { chainOfProto, SIGNER_CHAINS } from "./chains/index.js";
import { IndexSet } from "./index-set.js";
import type { Keyring } from "./keys/keyring.js";
import type { AuditLog } from "./state/audit-log.js";
import type { ChainName } from "./vocabulary.js";

export class BadRequestError extends Error {
  override readonly name = "BadRequestError";
}

/** A deposit index asked for a second time; `highest` is the highest one handed out on that branch. */
export class IndexIssuedError extends Error {
  override readonly name = "IndexIssuedError";
  constructor(
    readonly highest: number,
    message: string,
  ) {
    super(message);
  }
}

/** The deposit indices handed out, per chain and mode, rebuilt at start from the audit chain's `address` entries. */
export interface IssuedIndices {
  /** Applies an `address` entry read back from the audit log. */
  replay(entry: { decision: string; [field: string]: unknown }): void;
  has(chain: ChainName, mode: ModeName, index: number): boolean;
  highest(chain: ChainName, mode: ModeName): number | undefined;
  add(chain: ChainName, mode: ModeName, index: number): void;
  /** Every branch's indices, for a checkpoint; `restore` starts from them. */
  snapshot(): IssuedSnapshot;
  restore(state: IssuedSnapshot): void;
}

export type IssuedSnapshot = { branch: string; highest: number; bits: string; far: number[] }[];

export function createIssuedIndices(): IssuedIndices {
  const branches = new Map<string, { indices: IndexSet; highest: number }>();
  const branch = (chain: string, mode: string) => {
    const key = `${chain}:${mode}`;
    const found = branches.get(key) ?? { indices: new IndexSet(), highest: -1 };
    branches.set(key, found);
    return found;
  };
  const issued: IssuedIndices = {
    replay(entry) {
      issued.add(entry.chain as ChainName, entry.mode as ModeName, Number(entry.index));
    },
    has: (chain, mode, index) => branch(chain, mode).indices.has(index),
    highest(chain, mode) {
      const { highest } = branch(chain, mode);
      return highest < 0 ? undefined : highest;
    },
    add(chain, mode, index) {
      const b = branch(chain, mode);
      b.indices.add(index);
      if (index > b.highest) b.highest = index;
    },
    snapshot: () =>
      [...branches].map(([key, b]) => ({ branch: key, highest: b.highest, ...b.indices.snapshot() })),
    restore(state) {
      for (const { branch: key, highest, bits, far } of state)
        branches.set(key, { indices: IndexSet.restore({ bits, far }), highest });
    },
  };
  return issued;
}

export function chainName(chain: Chain): ChainName {
  const found = chainOfProto(chain);
  if (!found) {
    const names = SIGNER_CHAINS.map(({ name }) => `CHAIN_${name.toUpperCase()}`);
    throw new BadRequestError(`chain must be ${names.join(" or ")}`);
  }
  return found.name;
}

export function modeName(mode: Mode): ModeName {
  const found = modeFromProto(mode);
  if (!found) throw new BadRequestError("mode must be MODE_LIVE or MODE_TEST");
  return found;
}

/** The names of a deposit request's chain and mode; BadRequestError for anything out of range. */
export function checkDepositRequest(chain: Chain, mode: Mode, index: number): [ChainName, ModeName] {
  if (!Number.isInteger(index) || index < 0 || index >= 2 ** 31)
    throw new BadRequestError("index must be below 2^31");
  return [chainName(chain), modeName(mode)];
}

export interface AddressBook {
  deriveDepositAddress(chain: Chain, mode: Mode, index: number): string;
  serviceAddresses(): Omit<ServiceAddresses, "$typeName">[];
}

/**
 * With `issued`, every deposit index is recorded in the audit chain as it is handed out (the
 * caller syncs the log before answering) and a second request for it is refused.
 */
export function createAddressBook(
  keyring: Keyring,
  issued?: { indices: IssuedIndices; audit: Pick<AuditLog, "append"> },
): AddressBook {
  return {
    deriveDepositAddress(chain, mode, index) {
      const [c, m] = checkDepositRequest(chain, mode, index);
      const address = keyring.key(c, "deposit", m, index).address;
      if (issued) {
        if (issued.indices.has(c, m, index)) {
          const highest = issued.indices.highest(c, m) ?? index;
          throw new IndexIssuedError(
            highest,
            `deposit index ${index} on ${c} ${m} was handed out before; the highest handed out is ${highest}`,
          );
        }
        issued.indices.add(c, m, index);
        issued.audit.append({ decision: "address", intent: {}, chain: c, mode: m, index, address });
      }
      return address;
    },

    serviceAddresses() {
      return SIGNER_CHAINS.flatMap(({ proto: chain, name }) =>
        MODE_NAMES.map((mode) => ({
          chain,
          mode: MODE_TO_PROTO[mode],
          vault: keyring.key(name, "vault", mode).address,
          gas: keyring.key(name, "gas", mode).address,
        })),
      );
    },
  };
}
