// `npm run retry-refund -- <payment id> --by <operator>`: the operator's way on for a payment whose
// refund failed on chain (docs/operations.md, "A refund that failed on chain"). Runs where the
// watcher's attestation key is (WATCHER_ATTESTATION_SEED), never on settlement's host. For each of
// the payment's unsent Solana refunds it asks the chain whether the latest transaction failed at
// finality; only then is the failure attested and the refund sent to settlement again, whose next
// attempt carries the attestation to the signer. Exits 1 when something was not retried.
import { busTopology } from "@gateway/bus";
import { RetryRefusedError, retryFailedIntent, solanaConnection } from "@gateway/chain-solana";
import { loadConfigOrExit, retryRefundConfigSchema } from "@gateway/config";
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
try {
  const refunds = await unsentRefunds(sql, paymentId);
  if (!refunds) {
    out(`no payment ${paymentId}`);
    process.exitCode = 1;
  } else if (refunds.length === 0) out(`payment ${paymentId} has no unsent refund`);
  const operator = {
    sql,
    connection: solanaConnection(config.SOLANA_RPC_URL, "finalized"),
    attestor: attestor!,
    requestedBy: by,
  };
  for (const refund of refunds ?? []) {
    if (refund.chain !== "solana") {
      out(`NOT retried: refund ${refund.refundId} is on ${refund.chain}; only Solana refunds are retried`);
      process.exitCode = 1;
      continue;
    }
    try {
      const retry = await retryFailedIntent(operator, refund.intentId, refund.mode);
      const subject = busTopology(config.BUS_PREFIX).subjects.settlement("refund");
      await republishRefund(sql, { paymentId, refundId: refund.refundId, attempt: retry.attempt, subject });
      out(
        `refund ${refund.refundId}: transaction ${retry.txid} failed on chain; attempt ${retry.attempt} replaces ${retry.replaces} and is sent to settlement`,
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
