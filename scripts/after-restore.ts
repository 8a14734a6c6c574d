// `npm run after-restore -- --signer-record FILE [--chains-only]`: the runbook's step after
// PostgreSQL was restored from a backup and before any service starts (docs/operations.md,
// "Restoring PostgreSQL from a backup"). FILE is what `signer record` printed on the signer's host
// ("-": standard input). The chains are asked what became of the sweeps and refunds signed for
// deposit wallets the restore took away (SOLANA_RPC_URL, SUI_GRPC_URL). `--chains-only` runs that step
// alone, later, for what had not landed yet. Prints what it did in plain words; exits 1 when
// something needs an operator.
import { readFileSync } from "node:fs";
import { busTopology } from "@gateway/bus";
import { loadEveryChain } from "@gateway/chain-packages";
import { afterRestoreConfigSchema, loadConfigOrExit } from "@gateway/config";
import { CHAINS, type Chain } from "@gateway/contracts";
import { createSql } from "@gateway/db";
import { payoutSubjects } from "@gateway/payouts";
import {
  type AfterRestoreOptions,
  type AfterRestoreReport,
  afterRestore,
  parseSignerRecord,
} from "@gateway/restore";

const args = process.argv.slice(2);
const file = args[args.indexOf("--signer-record") + 1];
if (!args.includes("--signer-record") || !file) {
  process.stderr.write(
    "usage: after-restore --signer-record FILE [--chains-only]   (FILE from `signer record`, - for stdin)\n",
  );
  process.exit(2);
}
const chainsOnly = args.includes("--chains-only");
const config = loadConfigOrExit("after-restore", afterRestoreConfigSchema);
// Each chain's package knows its assets as the signer spells them, and asks its endpoint what
// became of a transaction.
const restores = await loadEveryChain("restore");
const coins = Object.fromEntries(CHAINS.map((chain) => [chain, restores[chain].coins(config)]));
const coinOf = (chain: Chain, asset: string) => coins[chain]?.(asset);
const outcomeOf: NonNullable<AfterRestoreOptions["outcomeOf"]> = {};
for (const chain of CHAINS) {
  const outcome = restores[chain].outcomes(config);
  if (outcome) outcomeOf[chain] = outcome;
}
const record = parseSignerRecord(readFileSync(file === "-" ? 0 : file, "utf8"));
const sql = createSql({ url: config.DATABASE_URL, max: 1, applicationName: "after-restore" });
try {
  const report = await afterRestore(sql, {
    subjects: payoutSubjects(busTopology(config.BUS_PREFIX)),
    record,
    coinOf,
    outcomeOf,
    chainsOnly,
  });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  for (const s of report.suspense)
    out(
      `${s.kind} ${s.intentId} (${s.amount} base units of ${s.chain} ${s.coin}, ${s.txid}) is final on chain for a deposit wallet the database does not have: booked against the suspense account`,
    );
  for (const s of report.suspenseNotBooked) out(`NOT booked: ${s.intentId}: ${s.reason}`);
  if (report.suspenseNotBooked.length > 0) process.exitCode = 1;
  if (!chainsOnly) printRestoreSteps(report, out);
} finally {
  await sql.end();
}

function printRestoreSteps(report: AfterRestoreReport, out: (line: string) => void) {
  out(`bus epoch is now ${report.epoch}: messages published from now on are not taken for copies`);
  out(`${report.republished} messages (kept commands and the last 8 days of events) will be published again`);
  for (const p of report.payoutsPutBack)
    out(
      `payout ${p.id} (${p.merchantId}, ${p.amount} base units of ${p.chain} ${p.coin}) was signed after the backup: put back, settlement will book it`,
    );
  for (const s of report.sequencesMoved) out(`${s.sequence} moved to ${s.to}`);
  for (const a of report.addressesNoPaymentExpects)
    out(
      `deposit address ${a.address} (${a.chain} ${a.mode} index ${a.index}) was handed out after the backup: no payment expects it; what is sent there now stays there`,
    );
  for (const p of report.payoutsNotPutBack) out(`NOT put back: ${p.intentId}: ${p.reason}`);
  if (report.payoutsNotPutBack.length > 0) process.exitCode = 1;
}
