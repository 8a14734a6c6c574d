// Settlement's side of a payout: it asks the payout's decider what to do (packages/payouts), sends
// a live payout through its chain and the signer, and tells the actor what came of it.
import { nativeCoin } from "@gateway/chains";
import type { Sql } from "@gateway/db";
import { recordGasSpent } from "@gateway/ledger";
import type { Logger } from "@gateway/logging";
import {
  applyPayoutMessage,
  findPayout,
  type PayoutMessage,
  type PayoutRow,
  type PayoutSubjects,
  payoutStep,
  payoutWorkOf,
  stateOf,
} from "@gateway/payouts";
import { ChainPausedError } from "./chains/chain-paused.js";
import { type ChainPayouts, PayoutRefusedError } from "./chains/chain-payouts.js";

/** Chain errors retried this many times; after that the payout stays `processing` for an operator. */
const MAX_ATTEMPTS = 25;

/**
 * pending → processing → completed | failed. Test payouts are simulated: they complete at once
 * with no transaction and move no funds. Live payouts go through the chain's ChainPayout;
 * a refused one fails and its reserve returns to the available balance.
 */
export class PayoutExecutor {
  readonly #sql: Sql;
  readonly #log: Logger;
  readonly #subjects: PayoutSubjects;
  readonly #chains: ChainPayouts;

  constructor(options: { sql: Sql; log: Logger; subjects: PayoutSubjects; chains: ChainPayouts }) {
    this.#sql = options.sql;
    this.#log = options.log;
    this.#subjects = options.subjects;
    this.#chains = options.chains;
  }

  /** Executes one payout now (what a message does); `attempt` is the message's delivery count. */
  async process(payoutId: string, attempt = 1): Promise<PayoutRow | undefined> {
    const row = await findPayout(this.#sql, { id: payoutId });
    if (!row) return row;
    const step = payoutStep(stateOf(row));
    if (step === "none") return row;
    if (row.status === "pending") await this.#apply(payoutId, { type: "start" });
    if (step === "simulate") return this.#apply(payoutId, { type: "complete", txid: null });
    return this.#send(row, attempt);
  }

  async #send(row: PayoutRow, attempt: number): Promise<PayoutRow | undefined> {
    const payoutId = row.id;
    const chain = this.#chains[row.chain];
    if (!chain) {
      this.#log.warn({ payoutId, chain: row.chain }, "no live payout configured for chain; payout failed");
      const reason = `live payouts on ${row.chain} are not available yet`;
      return this.#apply(payoutId, { type: "fail", reason });
    }
    try {
      const { txid, gasSpent } = await chain.payout(payoutWorkOf(row));
      return await this.#complete(row, txid, gasSpent);
    } catch (err) {
      if (err instanceof PayoutRefusedError) {
        this.#log.warn({ err, payoutId }, "payout refused; funds released");
        return this.#apply(payoutId, { type: "fail", reason: err.message });
      }
      if (attempt >= MAX_ATTEMPTS && !(err instanceof ChainPausedError)) {
        // It may have gone out: keep the funds reserved and the status processing for an operator.
        this.#log.error(
          { err, payoutId, attempt },
          "payout still not confirmed after retries; operator must look",
        );
        return row;
      }
      throw err;
    }
  }

  /** Completion and the gas the service actually paid for it are booked together. */
  async #complete(
    row: PayoutRow,
    txid: string,
    gasSpent: bigint | undefined,
  ): Promise<PayoutRow | undefined> {
    return (await this.#sql.begin(async (tx) => {
      const done = await applyPayoutMessage(tx, this.#subjects, row.id, { type: "complete", txid });
      if (gasSpent !== undefined && gasSpent > 0n) {
        await recordGasSpent(tx, {
          reference: `payout:${row.id}`,
          mode: row.mode,
          chain: row.chain,
          coin: nativeCoin(row.chain),
          amount: gasSpent,
        });
      }
      return done?.row;
    })) as PayoutRow | undefined;
  }

  async #apply(payoutId: string, message: PayoutMessage): Promise<PayoutRow | undefined> {
    const applied = await this.#sql.begin((tx) => applyPayoutMessage(tx, this.#subjects, payoutId, message));
    return applied?.row;
  }
}
