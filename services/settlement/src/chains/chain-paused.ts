// Settlement sends nothing on a chain whose preflight fails (packages/chain-preflight): the work
// is retried later, and a pause never counts toward the attempts after which work is given up.
import type { Chain } from "@gateway/domain";
import type { ChainSettlement } from "./chain-settlement.js";

export class ChainPausedError extends Error {
  override readonly name = "ChainPausedError";
  constructor(readonly chain: Chain) {
    super(`${chain}: chain preflight failing; nothing is sent until it passes again`);
  }
}

/** What settlement sends through on one chain: sweeps, refunds and payouts. */
interface SendingAdapter {
  chain: Chain;
  sweep: ChainSettlement["sweep"];
  refund: ChainSettlement["refund"];
  payout(work: never): Promise<{ txid: string; gasSpent?: bigint }>;
}

/** `adapter` with every sending call refused while `crediting(chain)` is false. */
export function pausedWhileFailing<A extends SendingAdapter>(
  adapter: A,
  crediting: (chain: Chain) => boolean,
): A {
  const ensure = () => {
    if (!crediting(adapter.chain)) throw new ChainPausedError(adapter.chain);
  };
  return {
    chain: adapter.chain,
    async sweep(work) {
      ensure();
      return adapter.sweep(work);
    },
    async refund(work) {
      ensure();
      return adapter.refund(work);
    },
    async payout(work: Parameters<A["payout"]>[0]) {
      ensure();
      return adapter.payout(work as never);
    },
  } as A;
}
