// Property tests: random message sequences, including nonsense ones (wrong coins, unknown
// ids, replays, early expiry), against the invariants settlement relies on.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assertNever } from "./assert-never.js";
import { coinsForPayment, needsQuote, toCoinUnits } from "./coins.js";
import { COINS, type Coin, type Currency, type Mode } from "./money.js";
import {
  allRefundsSent,
  decide,
  initialPaymentState,
  type PaymentEffect,
  type PaymentMessage,
  type PaymentState,
  type PaymentStatus,
  type SimulatedOutcome,
} from "./payment.js";
import {
  deserializePaymentEffect,
  deserializePaymentMessage,
  deserializePaymentState,
  serializePaymentEffect,
  serializePaymentMessage,
  serializePaymentState,
} from "./payment-codec.js";
import { quotedAmount } from "./prices.js";

type Op =
  | { kind: "wallet"; option: number; wrongAmount: boolean }
  | { kind: "seen"; tx: number; size: number; wrongCoin: boolean; sender: number }
  | { kind: "final"; tx: number; size: number; wrongCoin: boolean; sender: number }
  | { kind: "dropped"; tx: number }
  | { kind: "expire"; early: boolean }
  | { kind: "quote_end"; early: boolean }
  | { kind: "sweep"; rate: boolean }
  | { kind: "refund_sent"; pick: number }
  | { kind: "fail" }
  | { kind: "simulate"; outcome: SimulatedOutcome }
  | { kind: "replay"; pick: number };

const tx = fc.integer({ min: 0, max: 4 });
const size = fc.integer({ min: 0, max: 4 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("wallet"), option: fc.nat(5), wrongAmount: fc.boolean() }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("seen"),
      tx,
      size,
      wrongCoin: fc.boolean(),
      sender: fc.nat(1),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("final"),
      tx,
      size,
      wrongCoin: fc.boolean(),
      sender: fc.nat(1),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("dropped"), tx }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("expire"), early: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("quote_end"), early: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("sweep"), rate: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("refund_sent"), pick: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fail") }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("simulate"),
      outcome: fc.constantFrom<SimulatedOutcome>("paid", "underpaid", "overpaid", "expired"),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("replay"), pick: fc.nat(40) }) },
);

interface Start {
  mode: Mode;
  currency: Currency;
  amount: bigint;
  fee: bigint;
}

const start: fc.Arbitrary<Start> = fc.oneof(
  fc.record({
    mode: fc.constantFrom<Mode>("test", "live"),
    currency: fc.constantFrom<Currency>("USD", "USDC", "USDT"),
    amount: fc.bigInt({ min: 50n, max: 100_000n }),
    fee: fc.constant(10n),
  }),
  fc.record({
    mode: fc.constantFrom<Mode>("test", "live"),
    currency: fc.constantFrom<Currency>("SOL", "SUI"),
    amount: fc.bigInt({ min: 1n, max: 5_000_000_000n }),
    fee: fc.constant(1n),
  }),
);

const EXPIRES_AT = 1_800_000_000_000;
const SENDERS = ["alice", "bob"];

/** The rate quoted wallets are locked at in these runs (micro-USD per coin). */
const RATE = 150_000_000n;
/** Quotes end before the payment does. */
const QUOTE_ENDS_AT = EXPIRES_AT - 60_000;

function dueOf(state: PaymentState): bigint {
  if (state.wallet) return state.wallet.amountDue;
  const coin = coinsForPayment(state.currency)[0]!.coin;
  return toCoinUnits(state.amount, state.currency, coin);
}

function transferAmount(due: bigint, size: number): bigint {
  const amounts = [1n, due / 3n > 0n ? due / 3n : 1n, due / 2n > 0n ? due / 2n : 1n, due, due + 7n];
  return amounts[size] ?? due;
}

function concretize(o: Op, state: PaymentState, history: readonly PaymentMessage[]): PaymentMessage {
  const coin: Coin = state.wallet?.coin ?? "USDC";
  const otherCoin: Coin = COINS.find((c) => c !== coin)!;
  switch (o.kind) {
    case "wallet": {
      const options = coinsForPayment(state.currency);
      const choice = options[o.option % options.length]!;
      const quoted = needsQuote(state.currency, choice.coin);
      const amountDue = needsQuote(state.currency, choice.coin)
        ? quotedAmount(state.amount, choice.coin, RATE)
        : toCoinUnits(state.amount, state.currency, choice.coin);
      return {
        type: "wallet_assigned",
        chain: choice.chain,
        coin: choice.coin,
        address: `addr-${choice.chain}-${choice.coin}`,
        amountDue: o.wrongAmount ? amountDue + 1n : amountDue,
        // Every quote the API makes ends at its own time, so a replayed quote_expire names an old one.
        ...(quoted ? { quote: { rate: RATE, expiresAt: QUOTE_ENDS_AT - history.length } } : {}),
      };
    }
    case "seen":
    case "final":
      return {
        type: o.kind === "seen" ? "transfer_seen" : "transfer_final",
        transferId: `tx${o.tx}`,
        coin: o.wrongCoin ? otherCoin : coin,
        amount: transferAmount(dueOf(state), o.size),
        sender: SENDERS[o.sender]!,
      };
    case "dropped":
      return { type: "transfer_dropped", transferId: `tx${o.tx}` };
    case "expire":
      return { type: "expire", now: o.early ? EXPIRES_AT - 1 : EXPIRES_AT + 1 };
    case "quote_end": {
      const endsAt = state.wallet?.quote?.expiresAt ?? QUOTE_ENDS_AT;
      return { type: "quote_expire", expiresAt: endsAt, now: o.early ? endsAt - 1 : QUOTE_ENDS_AT };
    }
    case "sweep":
      return { type: "sweep_done", txid: `sweep-${history.length}`, ...(o.rate ? { usdRate: RATE } : {}) };
    case "refund_sent": {
      const refund = state.refunds[o.pick % Math.max(1, state.refunds.length)];
      return {
        type: "refund_sent",
        refundId: refund?.refundId ?? "unknown",
        txid: `refund-${history.length}`,
      };
    }
    case "fail":
      return { type: "fail", reason: "property test" };
    case "simulate":
      return { type: "simulate", outcome: o.outcome };
    case "replay":
      return history[o.pick % Math.max(1, history.length)] ?? { type: "expire", now: EXPIRES_AT + 1 };
    default:
      return assertNever(o, "op");
  }
}

interface Ledger {
  /** Final transfers the actor accepted, plus what a simulation pretended to receive. */
  received: bigint;
  credited: bigint;
  refunded: bigint;
}

interface Step {
  before: PaymentState;
  message: PaymentMessage;
  after: PaymentState;
  effects: PaymentEffect[];
  accepted: boolean;
  ledger: Ledger;
}

function simulateRun(s: Start, ops: readonly Op[]): Step[] {
  let state = initialPaymentState({ id: "pay-1", expiresAt: EXPIRES_AT, ...s });
  const ledger: Ledger = { received: 0n, credited: 0n, refunded: 0n };
  const history: PaymentMessage[] = [];
  const steps: Step[] = [];
  for (const o of ops) {
    const message = concretize(o, state, history);
    history.push(message);
    const decision = decide(state, message);
    const accepted = decision.rejected === undefined;
    if (accepted && message.type === "transfer_final") ledger.received += message.amount;
    if (accepted && message.type === "simulate") ledger.received += decision.state.amountReceived;
    for (const effect of decision.effects) {
      if (effect.type === "credit") ledger.credited += effect.gross;
      if (effect.type === "refund") ledger.refunded += effect.amount;
    }
    steps.push({
      before: state,
      message,
      after: decision.state,
      effects: decision.effects,
      accepted,
      ledger: { ...ledger },
    });
    state = decision.state;
  }
  return steps;
}

// Most runs pick a wallet first, as a customer does; the others test what happens without one.
const firstWallet: fc.Arbitrary<Op[]> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.nat(3).map((option): Op[] => [{ kind: "wallet", option, wrongAmount: false }]),
  },
  { weight: 1, arbitrary: fc.constant<Op[]>([]) },
);
const sequences = fc
  .tuple(start, firstWallet, fc.array(op, { minLength: 1, maxLength: 40 }))
  .map(([s, first, rest]) => [s, [...first, ...rest]] as const);
const RUNS = { numRuns: 1000 };

// Counterexamples that random runs have found, shrunk, kept so that every run meets them again
// instead of waiting for a seed to draw them. Each names the seed and path that found it.
/** Seed 1213658048, path 357:0:0:5:7:10:10:11:3:6:6:6:6:6 (CI): a replayed quote_expire after a second wallet. */
const REPLAYED_QUOTE_END: readonly [Start, Op[]] = [
  { mode: "test", currency: "USD", amount: 50n, fee: 10n },
  [
    { kind: "wallet", option: 2, wrongAmount: false },
    { kind: "quote_end", early: false },
    { kind: "wallet", option: 0, wrongAmount: false },
    { kind: "replay", pick: 0 },
    { kind: "simulate", outcome: "paid" },
  ],
];

const TERMINAL: readonly PaymentStatus[] = ["completed", "refunded", "failed"];
const SETTLED: readonly PaymentStatus[] = ["completed", "underpaid", "refunded", "expired"];

describe("payment actor properties", () => {
  it("never leaves a terminal status; expired only moves to refunded", () => {
    fc.assert(
      fc.property(sequences, ([s, ops]) => {
        for (const step of simulateRun(s, ops)) {
          if (TERMINAL.includes(step.before.status)) expect(step.after.status).toBe(step.before.status);
          if (step.before.status === "expired") expect(["expired", "refunded"]).toContain(step.after.status);
        }
      }),
      RUNS,
    );
  });

  it("accounts for every unit: credited + refunded = received once settled, never more before", () => {
    fc.assert(
      fc.property(sequences, ([s, ops]) => {
        for (const step of simulateRun(s, ops)) {
          const { received, credited, refunded } = step.ledger;
          expect(credited + refunded).toBeLessThanOrEqual(received);
          if (SETTLED.includes(step.after.status)) expect(credited + refunded).toBe(received);
        }
      }),
      RUNS,
    );
  });

  it("is idempotent: applying an accepted message again changes nothing, now or later", () => {
    fc.assert(
      fc.property(sequences, ([s, ops]) => {
        const steps = simulateRun(s, ops);
        for (const step of steps) {
          if (!step.accepted) continue;
          const again = decide(step.after, step.message);
          expect(again.state).toEqual(step.after);
          expect(again.effects).toEqual([]);
          expect(again.rejected).toBeDefined();
        }
        // Later replays too; a wallet switch back to an earlier choice is a new request, not a replay.
        const last = steps.at(-1)!.after;
        for (const step of steps) {
          if (!step.accepted || step.message.type === "wallet_assigned") continue;
          const again = decide(last, step.message);
          // The generator gives every quote the same end. A quote_expire whose instant has passed
          // then also ends a later wallet's quote that ends at that instant and has not been told:
          // that quote has ended too, so this is right, not a replay's effect.
          const quote = last.wallet?.quote;
          if (
            step.message.type === "quote_expire" &&
            quote &&
            !quote.ended &&
            quote.expiresAt === step.message.expiresAt &&
            step.message.now >= quote.expiresAt
          ) {
            expect(again.state.wallet?.quote?.ended).toBe(true);
            expect(again.effects).toEqual([]);
            continue;
          }
          expect(again.state).toEqual(last);
          expect(again.effects).toEqual([]);
        }
      }),
      { ...RUNS, examples: [[REPLAYED_QUOTE_END]] },
    );
  });

  it("never lowers the amount received, and keeps it equal to the counted transfers", () => {
    fc.assert(
      fc.property(sequences, ([s, ops]) => {
        for (const step of simulateRun(s, ops)) {
          expect(step.after.amountReceived).toBeGreaterThanOrEqual(step.before.amountReceived);
          if (!step.after.simulated) {
            const counted = step.after.transfers
              .filter((t) => t.status === "counted")
              .reduce((sum, t) => sum + t.amount, 0n);
            expect(step.after.amountReceived).toBe(counted);
          }
        }
      }),
      RUNS,
    );
  });

  it("emits an event exactly when the status changes, and each event at most once", () => {
    fc.assert(
      fc.property(sequences, ([s, ops]) => {
        const seenEvents = new Set<string>();
        for (const step of simulateRun(s, ops)) {
          const events = step.effects.flatMap((e) => (e.type === "event" ? [e.event] : []));
          if (step.after.status === step.before.status) expect(events).toEqual([]);
          else expect(events.at(-1)).toBe(`payment.${step.after.status}`);
          for (const name of events) {
            expect(seenEvents.has(name)).toBe(false);
            seenEvents.add(name);
          }
        }
      }),
      RUNS,
    );
  });

  it("keeps refunds unique, recorded in the state, and refunded only when all are sent", () => {
    fc.assert(
      fc.property(sequences, ([s, ops]) => {
        const ids = new Set<string>();
        let sweeps = 0;
        for (const step of simulateRun(s, ops)) {
          for (const effect of step.effects) {
            if (effect.type === "sweep") sweeps += 1;
            if (effect.type !== "refund") continue;
            expect(ids.has(effect.refundId)).toBe(false);
            ids.add(effect.refundId);
            const { type: _type, ...refund } = effect;
            expect(step.after.refunds).toContainEqual({ ...refund, txid: null });
            expect(effect.amount).toBeGreaterThan(0n);
          }
          expect(step.after.refunds.map((r) => r.refundId).sort()).toEqual([...ids].sort());
          if (step.after.status === "refunded" && step.before.status !== "refunded") {
            expect(allRefundsSent(step.after)).toBe(true);
          }
          // Pending means nothing received: at most transfers returned for arriving after their quote.
          if (step.after.status === "pending") {
            expect(step.after.transfers.filter((t) => t.status !== "returned")).toEqual([]);
          }
          if (step.after.status === "confirmed") {
            expect(step.after.amountReceived).toBeGreaterThanOrEqual(step.after.wallet!.amountDue);
          }
          if (step.after.status === "completed") {
            const credit = step.after.credit!;
            expect(credit.net).toBe(credit.gross - credit.fee);
            expect(credit.net).toBeGreaterThanOrEqual(0n);
          }
        }
        expect(sweeps).toBeLessThanOrEqual(1);
      }),
      RUNS,
    );
  });

  it("tells the customer of each surplus or late refund once, when sent, unless payment.refunded does", () => {
    fc.assert(
      fc.property(sequences, ([s, ops]) => {
        const noticed = new Set<string>();
        const announced = new Set<string>();
        const steps = simulateRun(s, ops);
        for (const step of steps) {
          if (step.message.type === "refund_sent" && step.effects.some(isRefundedEvent))
            announced.add(step.message.refundId);
          for (const effect of step.effects) {
            if (effect.type !== "refund_notice") continue;
            const refund = step.after.refunds.find((r) => r.refundId === effect.refundId);
            expect(["overpayment", "late"]).toContain(refund?.kind);
            expect(refund!.simulated || refund!.txid !== null).toBe(true);
            expect(noticed.has(effect.refundId)).toBe(false);
            noticed.add(effect.refundId);
          }
        }
        const sentOwn = (steps.at(-1)?.after.refunds ?? [])
          .filter((r) => r.kind !== "underpayment" && (r.simulated || r.txid !== null))
          .map((r) => r.refundId)
          .filter((id) => !announced.has(id));
        expect([...noticed].sort()).toEqual(sentOwn.sort());
      }),
      RUNS,
    );
  });

  it("never mutates its input and round-trips every state, message and effect through JSON", () => {
    fc.assert(
      fc.property(sequences, ([s, ops]) => {
        for (const step of simulateRun(s, ops)) {
          const snapshot = structuredClone(step.before);
          decide(step.before, step.message);
          expect(step.before).toEqual(snapshot);

          const stored = JSON.parse(JSON.stringify(serializePaymentState(step.after)));
          expect(deserializePaymentState(stored)).toEqual(step.after);
          const sent = JSON.parse(JSON.stringify(serializePaymentMessage(step.message)));
          expect(deserializePaymentMessage(sent)).toEqual(step.message);
          for (const effect of step.effects) {
            expect(
              deserializePaymentEffect(JSON.parse(JSON.stringify(serializePaymentEffect(effect)))),
            ).toEqual(effect);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it("lets a live payment never be simulated", () => {
    fc.assert(
      fc.property(sequences, ([s, ops]) => {
        for (const step of simulateRun({ ...s, mode: "live" }, ops)) {
          if (step.message.type === "simulate") expect(step.accepted).toBe(false);
          expect(step.after.simulated).toBe(false);
        }
      }),
      RUNS,
    );
  });
});

function isRefundedEvent(effect: PaymentEffect): boolean {
  return effect.type === "event" && effect.event === "payment.refunded";
}

describe("the sequence generator", () => {
  it("reaches every status and every kind of refund, so the properties above are not vacuous", () => {
    const statuses = new Set<string>();
    const refundKinds = new Set<string>();
    const rejections = new Set<string>();
    const pairs = new Map<string, number>();
    const notices = new Set<string>();
    for (const [s, ops] of fc.sample(sequences, { numRuns: 1000, seed: 42 })) {
      for (const step of simulateRun(s, ops)) {
        statuses.add(step.after.status);
        for (const e of step.effects) {
          if (e.type === "refund") refundKinds.add(`${e.kind}${e.simulated ? "*" : ""}`);
          if (e.type === "refund_notice")
            notices.add(e.refundId.includes(":simulated:") ? "simulated" : "sent");
        }
        const rejected = decide(step.before, step.message).rejected;
        if (rejected === undefined && !step.before.simulated) {
          const key = `${step.before.status}+${step.message.type}`;
          pairs.set(key, (pairs.get(key) ?? 0) + 1);
        }
        if (rejected !== undefined) rejections.add(rejected.code);
      }
    }
    expect([...statuses].sort()).toEqual([...PAYMENT_STATUSES_SORTED]);
    expect([...refundKinds].sort()).toEqual([
      "late",
      "overpayment",
      "overpayment*",
      "underpayment",
      "underpayment*",
    ]);
    for (const code of [
      "duplicate",
      "coin_mismatch",
      "not_applicable",
      "unknown_refund",
      "no_wallet",
      "not_expired",
    ]) {
      expect(rejections).toContain(code);
    }
    // Deep paths, not just the first step: late money to a real completed payment, and
    // refunds sent for an underpaid one.
    expect(pairs.get("completed+transfer_final")).toBeGreaterThan(0);
    expect(pairs.get("underpaid+refund_sent")).toBeGreaterThan(0);
    expect([...notices].sort()).toEqual(["sent", "simulated"]);
  });
});

const PAYMENT_STATUSES_SORTED = [
  "completed",
  "confirmed",
  "confirming",
  "expired",
  "failed",
  "pending",
  "refunded",
  "underpaid",
] as const;
