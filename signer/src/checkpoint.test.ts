// Checkpoints: a signer started from one decides as a signer that replayed its whole chain would,
// older segments leave the host only as far as the operator moves them, and a state file or
// segment that is not what the chain recorded stops the start or the offline check.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Chain, Mode, RefusalCode } from "@gateway/signer-proto";
import { afterEach, describe, expect, it } from "vitest";
import {
  createTestSigner,
  request,
  solanaSolPayout,
  solanaTokenSweep,
  suiTokenSweep,
  type TestSigner,
  testApprovers,
} from "../test/fixtures.js";
import { createPayoutPolicy } from "./policy/payouts.js";
import { createRefundAttestationRule } from "./policy/refunds.js";
import { verifyAuditChain } from "./storage/audit-segments.js";

const open: TestSigner[] = [];
const signer = (options: Parameters<typeof createTestSigner>[0] = {}) => {
  const s = createTestSigner(options);
  open.push(s);
  return s;
};
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

const PAYOUT_OPTIONS = {
  destinationDelaySeconds: { live: 0, test: 0 },
  approvalMaxTtlSeconds: 900,
  limits: { perMerchant: { count: 5, amount: 10n ** 12n }, total: { count: 50, amount: 10n ** 13n } },
};
const refusal = (outcome: ReturnType<TestSigner["core"]["decide"]>) =>
  outcome.ok ? undefined : { code: RefusalCode[outcome.refusal.code], reason: outcome.refusal.reason };
const lines = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("a signer started from a checkpoint", () => {
  const approvers = testApprovers();
  const ledger = { maxSweepsPerDeposit: 2 };

  it("answers repeats, counts, indices and totals as the whole chain would", async () => {
    const caps = new Map([["solana:*", { perIntent: 2_000_000n, perDay: 3_000_000n }]]);
    const first = signer({ approvers, ledger, caps });
    const { keyring } = first;
    const sweep = solanaTokenSweep(keyring, 5);
    const signedSweep = first.core.decide(request(sweep.intent, sweep.tx));
    expect(signedSweep.ok).toBe(true);
    const second = solanaTokenSweep(keyring, 5);
    expect(first.core.decide(request(second.intent, second.tx)).ok).toBe(true);
    const payout = solanaSolPayout(keyring, approvers, 2_000_000n);
    expect(first.core.decide(request(payout.intent, payout.tx)).ok).toBe(true);
    first.core.deriveDepositAddress(Chain.SOLANA, Mode.LIVE, 40);
    await first.core.sync();
    first.checkpoint();
    const after = solanaTokenSweep(keyring, 6);
    expect(first.core.decide(request(after.intent, after.tx)).ok).toBe(true);
    await first.core.sync();
    first.close();
    open.splice(0);

    // The live segment now begins with the checkpoint; the rest of the chain is in the archive.
    expect(lines(first.auditPath)[0]).toMatchObject({ decision: "checkpoint", intents: 3 });
    expect(readdirSync(`${first.auditPath}.archive`)).toHaveLength(1);

    const again = signer({ dir: first.dir, approvers, ledger, caps });
    // A repeat of an intent signed before the checkpoint gets the first transaction back.
    const repeat = again.core.decide(request(sweep.intent, solanaTokenSweep(keyring, 5, 2_500_000n).tx));
    expect(refusal(repeat)).toBeUndefined();
    expect(repeat.ok && signedSweep.ok && Buffer.from(repeat.response.transaction)).toEqual(
      signedSweep.ok && Buffer.from(signedSweep.response.transaction),
    );
    // Its sweep count, its deposit index and today's payout total came through the checkpoint.
    const third = solanaTokenSweep(keyring, 5);
    expect(refusal(again.core.decide(request(third.intent, third.tx)))?.code).toBe("SWEEP_LIMIT_EXCEEDED");
    expect(() => again.core.deriveDepositAddress(Chain.SOLANA, Mode.LIVE, 40)).toThrow(/handed out before/);
    const over = solanaSolPayout(keyring, approvers, 1_500_000n);
    expect(refusal(again.core.decide(request(over.intent, over.tx)))?.code).toBe("DAILY_CAP_EXCEEDED");
    expect(again.ledger.size().intents).toBe(4);
    await again.core.sync();
    expect(verifyAuditChain(again.auditPath)).toMatchObject({
      ok: true,
      entries: again.audit.head().seq,
      checkpoints: 1,
    });
  });

  it("answers the hash of entries on both sides of a checkpoint, and none past its head", async () => {
    const s = signer();
    const heads = [s.audit.head()];
    for (let i = 0; i < 3; i++) {
      const { intent, tx } = solanaTokenSweep(s.keyring, 60 + i);
      s.core.decide(request(intent, tx));
      heads.push(s.audit.head());
      if (i === 1) s.checkpoint();
    }
    for (const head of heads) expect(s.audit.hashAt(head.seq)).toBe(head.hash);
    expect(s.audit.hashAt(s.audit.head().seq + 1)).toBeUndefined();
  });

  it("refuses a repeat whose archived segment left the host, naming the audit entry", async () => {
    const first = signer();
    const { intent, tx } = solanaTokenSweep(first.keyring, 7);
    expect(first.core.decide(request(intent, tx)).ok).toBe(true);
    const seq = first.audit.head().seq;
    first.checkpoint();
    first.close();
    open.splice(0);
    renameSync(`${first.auditPath}.archive`, join(first.dir, "moved-away"));
    const again = signer({ dir: first.dir });
    const outcome = refusal(again.core.decide(request(intent, tx)));
    expect(outcome).toMatchObject({ code: "INTENT_ARCHIVED" });
    expect(outcome?.reason).toContain(`audit entry ${seq}`);
    expect(again.audit.hashAt(seq)).toBeUndefined();
    // Nothing new is signed for it: the intent id stays bound.
    expect(lines(again.auditPath).filter((l) => l.decision === "signed")).toEqual([]);
  });

  it("keeps input locks within their retention and drops older ones", async () => {
    let now = new Date("2026-01-01T00:00:00Z");
    const checkpoints = { everyEntries: 1_000_000, everyMs: 3_600_000, keepLocksMs: 7 * 86_400_000 };
    const s = signer({ now: () => now, checkpoints });
    const { intent, tx, objects } = await suiTokenSweep(s.keyring, 3);
    expect(s.core.decide(request(intent, tx, objects)).ok).toBe(true);
    const locks = s.ledger.size().locks;
    expect(locks).toBeGreaterThan(0);
    now = new Date("2026-01-02T00:00:00Z");
    s.checkpoint();
    expect(s.ledger.size().locks).toBe(locks);
    now = new Date("2026-01-09T00:00:01Z");
    s.checkpoint();
    expect(s.ledger.size().locks).toBe(0);
    // The intent itself is still bound: exactly once does not expire with its locks.
    expect(s.core.decide(request(intent, tx, objects)).ok).toBe(true);
  });

  it("carries the rules' state: refunded totals and payout allow-lists", () => {
    const rule = createRefundAttestationRule([]);
    rule.apply?.({ transfer: "solana:live:t1", amount: "700" }, new Date());
    const restored = createRefundAttestationRule([]);
    restored.restore?.(JSON.parse(JSON.stringify(rule.snapshot?.())));
    expect(restored.snapshot?.()).toEqual([["solana:live:t1", "700"]]);

    const payouts = createPayoutPolicy(PAYOUT_OPTIONS);
    const at = new Date();
    payouts.requestDestination(
      {
        merchantId: "m1",
        chain: "solana",
        mode: "live",
        address: "11111111111111111111111111111112",
        linked: true,
        approvalExpiresAtMs: BigInt(at.getTime() + 60_000),
        approvalDigest: "d1",
      },
      at,
    );
    const copy = createPayoutPolicy(PAYOUT_OPTIONS);
    copy.restore?.(JSON.parse(JSON.stringify(payouts.snapshot?.())));
    expect(copy.listDestinations("m1")).toEqual(payouts.listDestinations("m1"));
    expect(copy.snapshot?.()).toEqual(payouts.snapshot?.());
  });
});

describe("what a start or the offline check refuses", () => {
  function checkpointed() {
    const s = signer();
    const { intent, tx } = solanaTokenSweep(s.keyring, 9);
    expect(s.core.decide(request(intent, tx)).ok).toBe(true);
    s.checkpoint();
    s.close();
    open.splice(0);
    return s;
  }

  it("a state file that is not the one the chain recorded: start refused", () => {
    const s = checkpointed();
    const dir = `${s.auditPath}.checkpoints`;
    const [name] = readdirSync(dir);
    const bytes = readFileSync(join(dir, name!));
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1);
    writeFileSync(join(dir, name!), bytes);
    expect(() => signer({ dir: s.dir })).toThrow(/not the state the chain recorded/);
  });

  it("a rule configured since the checkpoint starts from nothing", () => {
    const s = checkpointed();
    const rules = [createRefundAttestationRule([]), createPayoutPolicy(PAYOUT_OPTIONS)];
    const again = signer({ dir: s.dir, rules });
    expect(again.ledger.size().intents).toBe(1);
    expect(rules[0]!.snapshot?.()).toEqual([]);
  });

  it("a rotation cut between its two renames is finished at the next start", () => {
    const s = checkpointed();
    const head = lines(s.auditPath).at(-1);
    renameSync(s.auditPath, `${s.auditPath}.next`);
    const again = signer({ dir: s.dir });
    expect(again.audit.head()).toEqual({ seq: head.seq, hash: head.hash });
    expect(existsSync(`${s.auditPath}.next`)).toBe(false);
  });

  it("an edited archived entry fails the offline check, naming the segment", () => {
    const s = checkpointed();
    const [segment] = readdirSync(`${s.auditPath}.archive`);
    const file = join(`${s.auditPath}.archive`, segment!);
    writeFileSync(file, readFileSync(file, "utf8").replace('"depositIndex":9', '"depositIndex":8'));
    const result = verifyAuditChain(s.auditPath);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problem).toContain(segment);
  });
});
