import type { Sql } from "@gateway/db";
import type { Chain, Mode } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import type { DepositAddressOutcome } from "@gateway/signer-client";

/** A deposit address no wallet has had, with the derivation index the signer made it from. */
export interface DepositAddress {
  index: bigint;
  address: string;
}

/** What makes addresses: the signer, many indices of one branch in one call (signer-addresses.ts). */
export interface DepositAddressDeriver {
  /** One outcome per index, in order: its address, or the signer's word that it was handed out before. */
  derive(chain: Chain, mode: Mode, indices: bigint[]): Promise<DepositAddressOutcome[]>;
}

export interface DepositAddressPool {
  /** An address for a new deposit wallet; each is handed out once by this pool. */
  take(chain: Chain, mode: Mode): Promise<DepositAddress>;
  /**
   * An address taken but given to no wallet (its insert lost a race to the same choice) comes
   * back for the next taker instead of being skipped.
   */
  giveBack(chain: Chain, mode: Mode, address: DepositAddress): void;
}

export interface DepositAddressPoolOptions {
  sql: Sql;
  deriver: DepositAddressDeriver;
  log: Logger;
  /** Indices reserved and derived per refill. */
  batch?: number;
}

/** Refills that find every index handed out before (a restore) before giving up. */
const REFILL_ATTEMPTS = 3;

/**
 * Deposit addresses derived ahead, a batch at a time per chain and mode: one `nextval` over the
 * batch and one call to the signer serve `batch` wallets, where each wallet used to cost a round
 * trip to PostgreSQL and a call to the signer (TLS, HTTP/2, the audit sync) of its own. A refill
 * starts in the background once half the batch is used, so a taker rarely waits for one.
 *
 * What is derived and not yet taken lives only in this process: an API that stops leaves a gap of
 * at most one batch per branch in the indices, which nothing minds (a sequence has gaps anyway,
 * and the signer only refuses an index twice). An address is handed out once: the signer
 * refuses an index it derived before, and an index comes from the sequence once.
 *
 * After a restore of PostgreSQL the sequence is behind the signer: the refill's indices come back
 * as handed out, the sequence is moved past the highest one the signer names, and the refill
 * asks again (docs/operations.md, "Restoring PostgreSQL from a backup").
 */
export function depositAddressPool({
  sql,
  deriver,
  log,
  batch = 64,
}: DepositAddressPoolOptions): DepositAddressPool {
  if (!Number.isInteger(batch) || batch < 1 || batch > 1000)
    throw new Error(`deposit address batch must be 1-1000, got ${batch}`);
  const branches = new Map<string, { ready: DepositAddress[]; refilling?: Promise<void> | undefined }>();
  const lowWater = Math.floor(batch / 2);

  function branchOf(chain: Chain, mode: Mode) {
    const key = `${chain}:${mode}`;
    let branch = branches.get(key);
    if (!branch) {
      branch = { ready: [] };
      branches.set(key, branch);
    }
    return branch;
  }

  async function refill(chain: Chain, mode: Mode, ready: DepositAddress[]): Promise<void> {
    const sequence = `deposit_index_${chain}_${mode}`;
    for (let attempt = 1; ; attempt++) {
      const rows = await sql<{ index: bigint }[]>`
        select nextval(${sequence}) as index from generate_series(1, ${batch})`;
      const indices = rows.map((r) => r.index);
      const outcomes = await deriver.derive(chain, mode, indices);
      let highestIssued: number | undefined;
      for (const [i, outcome] of outcomes.entries()) {
        if ("address" in outcome) ready.push({ index: indices[i]!, address: outcome.address });
        else highestIssued = Math.max(highestIssued ?? -1, outcome.issued.highestIssued);
      }
      if (highestIssued === undefined) return;
      await sql`select setval(${sequence}, greatest(${highestIssued}, last_value)) from ${sql(sequence)}`;
      log.warn(
        { chain, mode, highestIssued },
        "deposit indices were handed out before (a database restore?): sequence moved past them",
      );
      if (ready.length > 0) return;
      if (attempt >= REFILL_ATTEMPTS)
        throw new Error(`no new deposit index on ${chain} ${mode} after ${attempt} attempts`);
    }
  }

  function ensureRefill(chain: Chain, mode: Mode): Promise<void> {
    const branch = branchOf(chain, mode);
    branch.refilling ??= refill(chain, mode, branch.ready).finally(() => {
      branch.refilling = undefined;
    });
    return branch.refilling;
  }

  return {
    async take(chain, mode) {
      const branch = branchOf(chain, mode);
      for (;;) {
        const next = branch.ready.shift();
        if (next) {
          if (branch.ready.length < lowWater && !branch.refilling) {
            // Its failure reaches the next taker that finds the pool empty.
            ensureRefill(chain, mode).catch((err) =>
              log.warn({ err, chain, mode }, "deriving deposit addresses ahead failed"),
            );
          }
          return next;
        }
        // A refill that ends with nothing left (others took it all) is followed by another.
        await ensureRefill(chain, mode);
      }
    },
    giveBack(chain, mode, address) {
      branchOf(chain, mode).ready.unshift(address);
    },
  };
}
