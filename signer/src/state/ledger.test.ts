// What a restarted signer rebuilds from the ledger records in its audit chain: the transaction
// bound to each intent id, the effect it is bound to, and the counts. Both in the record format
// it writes (the intent's fields taken from the entry) and in the one written before, which
// carried them inside each record (format-1.audit.jsonl, written by that code).
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { approverKeyFromSeed, approverPublicKeyHex, type IntentInput } from "@gateway/signer-client";
import { RefusalCode } from "@gateway/signer-proto";
import { afterEach, describe, expect, it } from "vitest";
import {
  approve,
  createTestSigner,
  request,
  solanaSolPayout,
  solanaTokenSweep,
  type TestApprovers,
  type TestSigner,
} from "../../test/fixtures.js";
import type { SignOutcome } from "../signer-core.js";

const FIXTURES = new URL("./fixtures/", import.meta.url).pathname;
// The approver keys the fixture's payout was approved with (test keys, nothing else trusts them).
const approverKey = (byte: string) => approverKeyFromSeed(Buffer.from(byte.repeat(32), "hex"));
const settlementKey = approverKey("11");
const apiKey = approverKey("22");
const approvers: TestApprovers = {
  settlement: { keyId: "settlement-1", key: settlementKey },
  api: { keyId: "api-1", key: apiKey },
  trusted: [
    {
      keyId: "settlement-1",
      approves: "refund",
      publicKey: Buffer.from(approverPublicKeyHex(settlementKey), "hex"),
    },
    { keyId: "api-1", approves: "payout", publicKey: Buffer.from(approverPublicKeyHex(apiKey), "hex") },
  ],
};
type PayoutInput = Extract<IntentInput, { destination: string }>;
const NOT_A_TRANSACTION = new Uint8Array([1, 2, 3]);

const open: TestSigner[] = [];
function start(dir: string, maxSweepsPerDeposit = 8): TestSigner {
  const signer = createTestSigner({ dir, approvers, ledger: { maxSweepsPerDeposit } });
  open.push(signer);
  return signer;
}
afterEach(() => {
  for (const signer of open.splice(0)) signer.close();
});

function transactionOf(outcome: SignOutcome): string {
  if (!outcome.ok)
    throw new Error(`refused: ${RefusalCode[outcome.refusal.code]}: ${outcome.refusal.reason}`);
  return Buffer.from(outcome.response.transaction).toString("hex");
}

const refusalOf = (outcome: SignOutcome) => (outcome.ok ? "signed" : RefusalCode[outcome.refusal.code]);

/** A repeat, with bytes that would be refused if the intent were not bound already. */
const repeat = (signer: TestSigner, intent: IntentInput) =>
  signer.core.decide(request(approve(approvers, intent), NOT_A_TRANSACTION));

describe("ledger records read back at start", () => {
  it("reads a log written before records were compact: repeats get the bound transactions back", () => {
    const dir = mkdtempSync(join(tmpdir(), "ledger-format-1-"));
    for (const file of ["audit.jsonl", "audit.jsonl.genesis"])
      copyFileSync(join(FIXTURES, `format-1.${file}`), join(dir, file));
    const signed = JSON.parse(
      readFileSync(join(FIXTURES, "format-1.requests.json"), "utf8"),
      (_key, value) =>
        typeof value === "string" && /^\d+n$/.test(value) ? BigInt(value.slice(0, -1)) : value,
    ) as { intent: IntentInput; tx: string }[];
    // The fixture is in the earlier format: the sweep's record names its intent itself.
    expect(JSON.parse(readFileSync(join(dir, "audit.jsonl"), "utf8").split("\n")[1]!).ledger.id).toBe(
      "fmt1_sweep_3",
    );
    const signer = start(dir, 1);
    for (const { intent, tx } of signed) {
      expect(transactionOf(repeat(signer, intent))).toBe(tx);
      // Bound to its effect: the same id for other funds is a replay.
      expect(refusalOf(repeat(signer, { ...intent, amount: intent.amount + 1n }))).toBe("REPLAY");
    }
    // The sweep counted against its deposit (at most one here).
    const again = solanaTokenSweep(signer.keyring, 3);
    expect(refusalOf(signer.core.decide(request(again.intent, again.tx)))).toBe("SWEEP_LIMIT_EXCEEDED");
  });

  it("writes compact records and rebuilds the same state from them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ledger-compact-"));
    const first = start(dir, 1);
    const sweep = solanaTokenSweep(first.keyring, 5);
    const payout = solanaSolPayout(first.keyring, approvers);
    const other = solanaSolPayout(first.keyring, approvers);
    const merchantPayout = approve(approvers, { ...(other.intent as PayoutInput), merchantId: "mer_1" });
    const bound = [
      { intent: sweep.intent, tx: transactionOf(first.core.decide(request(sweep.intent, sweep.tx))) },
      { intent: payout.intent, tx: transactionOf(first.core.decide(request(payout.intent, payout.tx))) },
      { intent: merchantPayout, tx: transactionOf(first.core.decide(request(merchantPayout, other.tx))) },
    ];
    await first.core.sync();
    first.close();
    open.splice(0);

    const lines = readFileSync(join(dir, "audit.jsonl"), "utf8").trim().split("\n").slice(1);
    for (const line of lines) {
      const { ledger } = JSON.parse(line);
      // The intent's fields and the signers are in the entry once, not again in its record.
      expect(Object.keys(ledger).sort()).toEqual(
        ["fee", "first", "locks", "transaction", "deposit"].filter((k) => k in ledger).sort(),
      );
      expect(ledger.transaction).toBeDefined();
    }

    const restarted = start(dir, 1);
    for (const { intent, tx } of bound) {
      expect(transactionOf(repeat(restarted, intent))).toBe(tx);
      expect(refusalOf(repeat(restarted, { ...intent, amount: intent.amount + 1n }))).toBe("REPLAY");
    }
    expect(refusalOf(repeat(restarted, { ...(merchantPayout as PayoutInput), merchantId: "mer_2" }))).toBe(
      "REPLAY",
    );
    const again = solanaTokenSweep(restarted.keyring, 5);
    expect(refusalOf(restarted.core.decide(request(again.intent, again.tx)))).toBe("SWEEP_LIMIT_EXCEEDED");
  });

  it("answers a repeat from the log on disk, and refuses one whose entry was edited after it was written", async () => {
    const signer = start(mkdtempSync(join(tmpdir(), "ledger-edited-")));
    const kept = solanaTokenSweep(signer.keyring, 7);
    const edited = solanaTokenSweep(signer.keyring, 8);
    const keptTx = transactionOf(signer.core.decide(request(kept.intent, kept.tx)));
    const editedTx = transactionOf(signer.core.decide(request(edited.intent, edited.tx)));
    await signer.core.sync();
    // Someone with the volume rewrites the second entry's bound transaction as the first's, and
    // its hash to match its new body, so the line is whole on its own: only the hash the signer
    // verified or wrote can tell.
    const lines = readFileSync(signer.auditPath, "utf8").trim().split("\n");
    const at = lines.findIndex((line) => line.includes(edited.intent.intentId));
    const entry = JSON.parse(lines[at]!);
    entry.ledger.transaction = Buffer.from(keptTx, "hex").toString("base64");
    const { hash: _old, ...rest } = entry;
    const body = JSON.stringify(rest);
    const hash = createHash("sha256").update(`${entry.prev}\n${body}`).digest("hex");
    lines[at] = `${body.slice(0, -1)},"hash":"${hash}"}`;
    writeFileSync(signer.auditPath, `${lines.join("\n")}\n`);

    expect(transactionOf(repeat(signer, kept.intent))).toBe(keptTx);
    const answer = repeat(signer, edited.intent);
    expect(refusalOf(answer)).toBe("UNSPECIFIED");
    expect(answer.ok ? "" : answer.refusal.reason).toMatch(/internal error/);
    expect(editedTx).not.toBe(keptTx);
  });
});
