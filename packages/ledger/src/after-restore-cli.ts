// `npm run after-restore -- --signer-record FILE`: the runbook's step after PostgreSQL was
// restored from a backup and before any service starts (docs/operations.md, "Restoring
// PostgreSQL from a backup"). FILE is what `signer record` printed on the signer's host ("-":
// standard input). Prints what it did in plain words; exits 1 when something needs an operator.
import { readFileSync } from "node:fs";
import { busTopology } from "@gateway/bus";
import { afterRestoreConfigSchema, loadConfigOrExit } from "@gateway/config";
import type { Chain } from "@gateway/contracts";
import { createSql } from "@gateway/db";
import { afterRestore, parseSignerRecord } from "./after-restore.js";
import { type PayoutCoin, payoutSubjects } from "./payouts.js";

const args = process.argv.slice(2);
const file = args[args.indexOf("--signer-record") + 1];
if (!args.includes("--signer-record") || !file) {
  process.stderr.write(
    "usage: after-restore --signer-record FILE   (FILE from `signer record`, - for stdin)\n",
  );
  process.exit(2);
}
const config = loadConfigOrExit("after-restore", afterRestoreConfigSchema);
const assets: Record<Chain, Record<string, PayoutCoin>> = {
  solana: { [config.SOLANA_USDC_MINT]: "USDC", [config.SOLANA_USDT_MINT]: "USDT" },
  sui: { [config.SUI_USDC_COIN_TYPE]: "USDC", [config.SUI_USDT_COIN_TYPE]: "USDT" },
};
const record = parseSignerRecord(readFileSync(file === "-" ? 0 : file, "utf8"));
const sql = createSql({ url: config.DATABASE_URL, max: 1, applicationName: "after-restore" });
try {
  const report = await afterRestore(sql, {
    subjects: payoutSubjects(busTopology(config.BUS_PREFIX)),
    record,
    coinOf: (chain, asset) => assets[chain][asset],
  });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`bus epoch is now ${report.epoch}: messages published from now on are not taken for copies`);
  out(`${report.republished} outbox messages no consumer has on record will be published again`);
  for (const p of report.payoutsPutBack)
    out(
      `payout ${p.id} (${p.merchantId}, ${p.amount} base units of ${p.chain} ${p.coin}) was signed after the backup: put back, settlement will book it`,
    );
  for (const s of report.sequencesMoved) out(`${s.sequence} moved to ${s.to}`);
  for (const a of report.addressesNoPaymentExpects)
    out(
      `deposit address ${a.address} (${a.chain} ${a.mode} index ${a.index}) was handed out after the backup: no payment expects it; funds sent there stay there`,
    );
  for (const p of report.payoutsNotPutBack) out(`NOT put back: ${p.intentId}: ${p.reason}`);
  if (report.payoutsNotPutBack.length > 0) process.exitCode = 1;
} finally {
  await sql.end();
}
