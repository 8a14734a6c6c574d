// `npm run retry-refund -- <payment id> --by <operator>`: the operator's way on for a payment whose
// refund failed on chain (docs/operations.md, "A refund that failed on chain"). Runs where the
// watcher's attestation key is (WATCHER_ATTESTATION_SEED), never on settlement's host. For each of
// the payment's unsent refunds it asks the refund's chain (SOLANA_RPC_URL, SUI_GRPC_URL) whether
// the latest transaction failed; only then is the failure attested and the refund sent to
// settlement again, whose next attempt carries the attestation to the signer. Exits 1 when
// something was not retried.
import { busTopology } from "@gateway/bus";
import { RetryRefusedError } from "@gateway/chain-kit";
import { loadEveryChain } from "@gateway/chain-packages";
import { loadConfigOrExit, retryRefundConfigSchema } from "@gateway/config";
import { CHAINS } from "@gateway/contracts";
import { createSql } from "@gateway/db";
import { republishRefund, unsentRefunds } from "@gateway/payments";
import { watcherAttestor } from "@gateway/signer-client";

const args = process.argv.slice(2);
const paymentId = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--by");
const by = args[args.indexOf("--by") + 1];
if (!paymentId || !args.includes("--by") || !by) {
  process.stderr.write("usage: retry-refund <payment id> --by <operator name>\n");
  process.exit(2);
}
const config = loadConfigOrExit("retry-refund", retryRefundConfigSchema);
const { attestor } = watcherAttestor(config);
const sql = createSql({ url: config.DATABASE_URL, max: 1, applicationName: "retry-refund" });
const out = (line: string) => process.stdout.write(`${line}\n`);
// Each chain's package proves the failure from its own chain; undefined when its endpoint is unset.
const modules = await loadEveryChain("retry");
const deps = { sql, attestor: attestor!, requestedBy: by };
const retriers = Object.fromEntries(CHAINS.map((chain) => [chain, modules[chain].retrier(config, deps)]));
try {
  const refunds = await unsentRefunds(sql, paymentId);
  if (!refunds) {
    out(`no payment ${paymentId}`);
    process.exitCode = 1;
  } else if (refunds.length === 0) out(`payment ${paymentId} has no unsent refund`);
  for (const refund of refunds ?? []) {
    const retry = retriers[refund.chain];
    if (!retry) {
      out(
        `NOT retried: refund ${refund.refundId} is on ${refund.chain}: set ${modules[refund.chain].variable}`,
      );
      process.exitCode = 1;
      continue;
    }
    try {
      const retried = await retry(refund.intentId, refund.mode);
      const subject = busTopology(config.BUS_PREFIX).subjects.settlement("refund");
      await republishRefund(sql, { paymentId, refundId: refund.refundId, attempt: retried.attempt, subject });
      out(
        `refund ${refund.refundId}: transaction ${retried.txid} failed on chain; attempt ${retried.attempt} replaces ${retried.replaces} and is sent to settlement`,
      );
    } catch (error) {
      if (!(error instanceof RetryRefusedError)) throw error;
      out(`NOT retried: ${error.message}`);
      process.exitCode = 1;
    }
  }
} finally {
  await sql.end();
}
