// The compromised-caller suite: the signer as deployed (its own process, mTLS, role
// certificates) against callers that hold a valid certificate and approval keys but lie. Each
// class is refused with its code and leaves its refusal in the audit log, or (for the repeats)
// gets nothing but the one transaction already bound to the intent. The honest request beside
// each proves the refusal is about the lie, not the set-up. docs/signer.md maps each row of the
// threat model to these tests.
import { spawn } from "node:child_process";
import { readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  buildSolanaSweep,
  buildSolanaTransfer,
  buildSuiSweep,
  encodeSuiCoinObject,
  solanaNonceAccountAddress,
} from "@gateway/chain-tx";
import {
  type AuditHeadValue,
  approverKeyFromSeed,
  generateApproverKey,
  type IntentInput,
  SignerAuditRegressionError,
  type SignInput,
  signApproval,
  signAttestation,
  withAuditHeadCheck,
} from "@gateway/signer-client";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type SignerProcess, startSignerProcess } from "./signer-process.js";

const MNEMONIC = "test test test test test test test test test test test junk";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const SUI = "0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI";
const SIGNER_DIR = path.resolve(import.meta.dirname, "../../../signer");
const refundKey = generateApproverKey();
const payoutKey = generateApproverKey();
const watcherKey = generateApproverKey();
const key = (seed: string) => approverKeyFromSeed(Buffer.from(seed, "hex"));
const watcher = { keyId: "watcher-1", key: key(watcherKey.seed) };

let signer: SignerProcess;
let sol: { vault: string; gas: string };
let n = 0;
const id = (p: string) => `${p}_pol_${process.pid}_${++n}`;
const blockhash = () => Keypair.generate().publicKey.toBase58();
const someone = () => Keypair.generate().publicKey.toBase58();

const POLICY_ENV = {
  SIGNER_SEED_MNEMONIC: MNEMONIC,
  SIGNER_TRUSTED_APPROVERS: JSON.stringify([
    { keyId: "settlement-1", approves: "refund", publicKey: refundKey.publicKey },
    { keyId: "api-1", approves: "payout", publicKey: payoutKey.publicKey },
    { keyId: "watcher-1", approves: "transfer", publicKey: watcherKey.publicKey },
  ]),
  SIGNER_CAPS: JSON.stringify({
    "solana:*": { perIntent: "1000000000", perDay: "30000000000" },
    "sui:*": { perIntent: "1000000000", perDay: "5000000000" },
  }),
  SIGNER_MAX_SWEEPS_PER_DEPOSIT: "2",
  SIGNER_SUI_MAX_GAS_PRICE: "2000",
  // Test-mode Sui gets a tiny daily gas budget: three 10-million-MIST transactions.
  SIGNER_GAS_BUDGETS: JSON.stringify({
    solana: "1000000000000",
    sui: "1000000000000000",
    "sui:test": "30000000",
  }),
};

beforeAll(async () => {
  signer = await startSignerProcess(POLICY_ENV);
  const book = await signer.client.getServiceAddresses();
  sol = book.solana.live;
}, 90_000);
afterAll(async () => {
  await signer?.stop();
});

function auditLines(): Record<string, unknown>[] {
  return readFileSync(signer.auditPath, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The code of the refusal, after checking the audit log holds it for that intent. */
async function refusedCode(input: SignInput): Promise<string> {
  const [outcome] = await signer.client.signBatch([input]);
  if (!outcome || outcome.ok) throw new Error(`${input.intent.intentId} was signed`);
  const line = auditLines()
    .reverse()
    .find((l) => (l.intent as { intentId?: string }).intentId === input.intent.intentId);
  expect(line?.decision).toBe("refused");
  expect(line?.code).toBe(outcome.refusal.code);
  return outcome.refusal.code;
}

async function signed(input: SignInput) {
  const [outcome] = await signer.client.signBatch([input]);
  if (!outcome?.ok) throw new Error(`refused: ${outcome?.refusal.code}: ${outcome?.refusal.reason}`);
  return outcome.signed;
}

async function sweep(
  index: number,
  over: { recentBlockhash?: string; intentId?: string } = {},
): Promise<SignInput> {
  const owner = await signer.client.deriveDepositAddress({ chain: "solana", mode: "live", index });
  return {
    intent: {
      intentId: over.intentId ?? id("sweep"),
      chain: "solana",
      mode: "live",
      asset: USDC,
      amount: 2_000_000n,
      kind: "sweep",
      depositIndex: index,
    },
    unsignedTransaction: buildSolanaSweep({
      asset: USDC,
      depositOwner: owner,
      vault: sol.vault,
      gasWallet: sol.gas,
      amount: 2_000_000n,
      decimals: 6,
      recentBlockhash: over.recentBlockhash ?? blockhash(),
    }),
  };
}

interface RefundOptions {
  amount?: bigint;
  destination?: string;
  attestedSender?: string;
  attestedAmount?: bigint;
  transferId?: string;
  attestor?: { keyId: string; key: ReturnType<typeof key> } | null;
  nonceValue?: string;
  durable?: boolean;
}

/** A refund from the vault, approved by settlement, of a transfer a watcher attested. */
function refund(o: RefundOptions = {}): SignInput {
  const destination = o.destination ?? someone();
  const amount = o.amount ?? 1_000_000n;
  const transferId = o.transferId ?? id("solana:tx");
  const attestor = o.attestor === undefined ? watcher : o.attestor;
  const depositAddress = someone();
  const transfer = {
    chain: "solana" as const,
    mode: "live" as const,
    asset: USDC,
    transferId,
    depositAddress,
    sender: o.attestedSender ?? destination,
    amount: o.attestedAmount ?? amount,
  };
  const attestation = attestor && signAttestation(transfer, attestor);
  const bare: IntentInput = {
    intentId: id("refund"),
    chain: "solana",
    mode: "live",
    asset: USDC,
    amount,
    kind: "refund",
    destination,
    reference: "pay_policy",
    ...(attestation
      ? {
          attestation: {
            keyId: attestation.key_id,
            signature: new Uint8Array(Buffer.from(attestation.signature, "base64")),
            transferId,
            depositAddress,
            sender: transfer.sender,
            amount: transfer.amount,
          },
        }
      : {}),
  };
  const intent = {
    ...bare,
    approval: signApproval({ intent: bare, keyId: "settlement-1", privateKey: key(refundKey.seed) }),
  } as IntentInput;
  return {
    intent,
    unsignedTransaction: buildSolanaTransfer({
      asset: USDC,
      source: sol.vault,
      destination,
      gasWallet: sol.gas,
      amount,
      decimals: 6,
      recentBlockhash: o.nonceValue ?? blockhash(),
      ...(o.durable === false ? {} : { nonceAccount: solanaNonceAccountAddress(sol.gas, 0) }),
    }),
  };
}

let coinCount = 0;
function suiCoin(owner: string, balance: bigint) {
  coinCount += 1;
  return encodeSuiCoinObject({
    objectId: `0x${(0xc0ffee000000 + coinCount).toString(16).padStart(64, "0")}`,
    version: 9n,
    owner,
    coinType: SUI,
    balance,
  });
}

async function suiSweep(
  mode: "live" | "test",
  index: number,
  o: {
    price?: bigint;
    coin?: ReturnType<typeof suiCoin>;
    gas?: ReturnType<typeof suiCoin>;
    intentId?: string;
  } = {},
) {
  const owner = await signer.client.deriveDepositAddress({ chain: "sui", mode, index });
  const wallets = (await signer.client.getServiceAddresses()).sui[mode];
  const coin = o.coin ?? suiCoin(owner, 5_000n);
  const gas = o.gas ?? suiCoin(wallets.gas, 10n ** 10n);
  return {
    coin,
    gas,
    input: {
      intent: {
        intentId: o.intentId ?? id("suisweep"),
        chain: "sui",
        mode,
        asset: SUI,
        amount: 5_000n,
        kind: "sweep",
        depositIndex: index,
      },
      unsignedTransaction: await buildSuiSweep({
        depositAddress: owner,
        vault: wallets.vault,
        coins: [{ ...coin.ref, balance: 5_000n }],
        amount: 5_000n,
        gas: { gasOwner: wallets.gas, payment: [gas.ref], price: o.price ?? 1_000n, budget: 10_000_000n },
      }),
      suiObjects: [coin.bcs],
    } satisfies SignInput,
  };
}

describe("one transaction per intent, whatever the caller sends", () => {
  it("1. the same sweep with a new blockhash gets the first transaction back, never a second", async () => {
    const first = await sweep(40);
    const a = await signed(first);
    const b = await signed({ ...(await sweep(40)), intent: first.intent });
    expect(Buffer.from(b.transaction).equals(Buffer.from(first.unsignedTransaction))).toBe(true);
    expect(b.signatures).toEqual(a.signatures);
    // Audited as a repeat: the bytes received are recorded beside the one transaction signed.
    const repeat = auditLines().at(-1) as { decision: string; ledger: { first: boolean } };
    expect(repeat.decision).toBe("signed");
    expect(repeat.ledger.first).toBe(false);
  });

  it("2. many copies of one intent in one batch, each with other bytes, yield one transaction", async () => {
    const copies = await Promise.all(Array.from({ length: 5 }, () => sweep(41)));
    const intent = copies[0]!.intent;
    const outcomes = await signer.client.signBatch(copies.map((c) => ({ ...c, intent })));
    const transactions = new Set(
      outcomes.map((o) => (o.ok ? Buffer.from(o.signed.transaction).toString("hex") : "refused")),
    );
    expect(transactions.size).toBe(1);
    expect(transactions.has(Buffer.from(copies[0]!.unsignedTransaction).toString("hex"))).toBe(true);
  });

  it("3. the same Sui sweep with a new gas object gets the first transaction back", async () => {
    const first = await suiSweep("live", 42);
    const a = await signed(first.input);
    const other = await suiSweep("live", 42, { coin: first.coin });
    const b = await signed({ ...other.input, intent: first.input.intent });
    expect(Buffer.from(b.transaction).equals(Buffer.from(first.input.unsignedTransaction))).toBe(true);
    expect(b.signatures).toEqual(a.signatures);
  });

  it("4. a Sui coin version already spent by one intent is refused to another (no equivocation)", async () => {
    const first = await suiSweep("live", 43);
    await signed(first.input);
    const second = await suiSweep("live", 43, { coin: first.coin });
    expect(await refusedCode(second.input)).toBe("INPUT_IN_USE");
  });

  it("5. a durable nonce value bound to one refund is refused to another", async () => {
    const value = blockhash();
    await signed(refund({ nonceValue: value }));
    expect(await refusedCode(refund({ nonceValue: value }))).toBe("INPUT_IN_USE");
  });

  it("6. a refund that does not spend a durable nonce (it could expire and be re-signed)", async () => {
    expect(await refusedCode(refund({ durable: false }))).toBe("NONCE_REQUIRED");
  });
});

describe("refunds only to an attested sender, never more than attested", () => {
  it("7. a refund without a watcher's attestation", async () => {
    expect(await refusedCode(refund({ attestor: null }))).toBe("NOT_ATTESTED");
  });

  it("8. a refund attested by settlement's own key instead of a watcher's", async () => {
    const forged = refund({ attestor: { keyId: "watcher-1", key: key(refundKey.seed) } });
    expect(await refusedCode(forged)).toBe("NOT_ATTESTED");
  });

  it("9. a refund to another address than the attested sender", async () => {
    expect(await refusedCode(refund({ attestedSender: someone() }))).toBe("NOT_ATTESTED");
  });

  it("10. a refund above the attested amount, in one intent", async () => {
    expect(await refusedCode(refund({ amount: 1_000_001n, attestedAmount: 1_000_000n }))).toBe(
      "OVER_ATTESTED",
    );
  });

  it("11. refunds above the attested amount, over several intents", async () => {
    const destination = someone();
    const transferId = id("solana:split");
    const part = { destination, transferId, attestedAmount: 1_000_000n, amount: 600_000n };
    await signed(refund(part));
    expect(await refusedCode(refund(part))).toBe("OVER_ATTESTED");
    await signed(refund({ ...part, amount: 400_000n }));
  });
});

describe("the gas wallet cannot be drained", () => {
  it("12. sweeps of one deposit past the bound", async () => {
    await signed(await sweep(44));
    await signed(await sweep(44));
    expect(await refusedCode(await sweep(44))).toBe("SWEEP_LIMIT_EXCEEDED");
  });

  it("13. a Sui gas price over the cap", async () => {
    expect(await refusedCode((await suiSweep("live", 45, { price: 2_001n })).input)).toBe(
      "GAS_PRICE_OVER_CAP",
    );
  });

  it("14. transactions past the day's gas budget, counted at their worst-case fee", async () => {
    for (const index of [0, 1, 2]) await signed((await suiSweep("test", index)).input);
    expect(await refusedCode((await suiSweep("test", 3)).input)).toBe("GAS_BUDGET_EXCEEDED");
  });

  it("15. a nonce account past the bound on their number", async () => {
    expect(
      await refusedCode({
        intent: {
          intentId: id("nonce"),
          chain: "solana",
          mode: "live",
          asset: "SOL",
          amount: 1_447_680n,
          kind: "nonce_account",
          index: 5_000,
        },
        unsignedTransaction: new Uint8Array(),
      }),
    ).toBe("INVALID_INTENT");
  });

  it("16. repeats count against the daily cap: a refund re-signed until the cap is spent", async () => {
    const base = refund({ amount: 1_000_000_000n });
    await signed(base);
    let code = "";
    for (let i = 0; i < 40 && !code; i++) {
      const [outcome] = await signer.client.signBatch([base]);
      if (outcome && !outcome.ok) code = outcome.refusal.code;
    }
    expect(code).toBe("DAILY_CAP_EXCEEDED");
  });
});

describe("roles: a certificate is worth only its role's calls", () => {
  it("17. a settlement certificate calling an API-only RPC", async () => {
    const settlement = signer.connect("settlement");
    await expect(
      settlement.deriveDepositAddress({ chain: "solana", mode: "live", index: 1 }),
    ).rejects.toThrow(/ROLE_NOT_ALLOWED/);
    settlement.close();
    const line = auditLines().at(-1) as { code: string; intent: { rpc: string } };
    expect(line).toMatchObject({ code: "ROLE_NOT_ALLOWED", intent: { rpc: "DeriveDepositAddress" } });
  });

  it("18. an API certificate asking for a signature", async () => {
    const api = signer.connect("api");
    await expect(api.sign(await sweep(46))).rejects.toThrow(/ROLE_NOT_ALLOWED/);
    api.close();
    expect(auditLines().at(-1)).toMatchObject({ code: "ROLE_NOT_ALLOWED" });
  });
});

/** Starts main.ts on an existing data folder and waits for it to exit: for states it must refuse. */
function startToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: SIGNER_DIR,
      env: { PATH: process.env.PATH ?? "", SIGNER_ENV: "development", SIGNER_HOST: "127.0.0.1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("the audit chain is the ledger, and a damaged one stops the signer", () => {
  async function usedSigner() {
    const s = await startSignerProcess(POLICY_ENV);
    const first = await s.client.signBatch([await sweepFor(s, 1)]);
    expect(first[0]?.ok).toBe(true);
    const head = await s.client.getAuditHead();
    await s.stop();
    return {
      s,
      head,
      dataEnv: { ...POLICY_ENV, SIGNER_AUDIT_LOG: s.auditPath, SIGNER_TLS_DIR: path.dirname(s.certs.ca) },
    };
  }

  async function sweepFor(s: SignerProcess, index: number): Promise<SignInput> {
    const book = await s.client.getServiceAddresses();
    const owner = await s.client.deriveDepositAddress({ chain: "solana", mode: "live", index });
    return {
      intent: {
        intentId: id("sweep"),
        chain: "solana",
        mode: "live",
        asset: USDC,
        amount: 1n,
        kind: "sweep",
        depositIndex: index,
      },
      unsignedTransaction: buildSolanaSweep({
        asset: USDC,
        depositOwner: owner,
        vault: book.solana.live.vault,
        gasWallet: book.solana.live.gas,
        amount: 1n,
        decimals: 6,
        recentBlockhash: blockhash(),
      }),
    };
  }

  const ports = async () => ({
    SIGNER_PORT: String(await freePort()),
    SIGNER_HEALTH_PORT: String(await freePort()),
  });

  it("19. an audit log with its tail cut mid-entry: start refused", async () => {
    const { s, dataEnv } = await usedSigner();
    truncateSync(s.auditPath, readFileSync(s.auditPath).length - 10);
    const result = await startToExit({ ...dataEnv, ...(await ports()) });
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/will not start/);
  }, 60_000);

  it("20. a missing audit log (the ledger) beside its genesis marker: start refused", async () => {
    const { s, dataEnv } = await usedSigner();
    rmSync(s.auditPath);
    const result = await startToExit({ ...dataEnv, ...(await ports()) });
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/missing or empty/);
  }, 60_000);

  it("21. an edited audit entry: start refused, naming the line", async () => {
    const { s, dataEnv } = await usedSigner();
    writeFileSync(
      s.auditPath,
      readFileSync(s.auditPath, "utf8").replace('"decision":"signed"', '"decision":"refused"'),
    );
    const result = await startToExit({ ...dataEnv, ...(await ports()) });
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/line \d+: hash does not match/);
  }, 60_000);

  it("22. whole entries cut from the tail: settlement's stored head catches it off the host", async () => {
    const { s, head } = await usedSigner();
    // Settlement kept the head it saw; the log is cut back to before that signing.
    const lines = readFileSync(s.auditPath, "utf8").trim().split("\n");
    writeFileSync(s.auditPath, `${lines.slice(0, -1).join("\n")}\n`);
    const restarted = await startSignerProcess({ ...POLICY_ENV, SIGNER_AUDIT_LOG: s.auditPath });
    const stored: AuditHeadValue[] = [head];
    const guarded = withAuditHeadCheck(restarted.client, {
      record: async (h) => void stored.push(h),
      highest: async () => stored.reduce((a, b) => (b.seq > a.seq ? b : a)),
    });
    await expect(guarded.signBatch([await sweepFor(restarted, 2)])).rejects.toBeInstanceOf(
      SignerAuditRegressionError,
    );
    await restarted.stop();
  }, 60_000);

  it("23. whole entries cut from the tail, grown back by derivations: the cut refund is not signed again", async () => {
    const s = await startSignerProcess(POLICY_ENV);
    const stored: AuditHeadValue[] = [];
    const store = {
      record: async (h: AuditHeadValue) => void stored.push(h),
      highest: async () =>
        stored.reduce<AuditHeadValue | undefined>((a, b) => (!a || b.seq > a.seq ? b : a), undefined),
    };
    const cut = refund();
    const [first] = await withAuditHeadCheck(s.client, store).signBatch([cut]);
    expect(first?.ok).toBe(true);
    const seen = stored.at(-1)!;
    await s.stop();
    // The refund's entry and everything after it are cut: the chain left is whole.
    const lines = readFileSync(s.auditPath, "utf8").trim().split("\n");
    writeFileSync(s.auditPath, `${lines.slice(0, Number(seen.seq) - 1).join("\n")}\n`);
    const restarted = await startSignerProcess({ ...POLICY_ENV, SIGNER_AUDIT_LOG: s.auditPath });
    // Ordinary derivations (the API's) push the head past the one settlement stored.
    for (let i = 0; i < 4; i++)
      await restarted.client.deriveDepositAddress({ chain: "solana", mode: "live", index: 900 + i });
    expect((await restarted.client.getAuditHead()).seq).toBeGreaterThan(seen.seq);

    const regressions: string[] = [];
    const again = withAuditHeadCheck(restarted.client, store, {
      onRegression: (e) => regressions.push(e.reason),
    });
    await expect(again.signBatch([cut])).rejects.toBeInstanceOf(SignerAuditRegressionError);
    await expect(again.sign(cut)).rejects.toThrow(/holds another entry/);
    expect(regressions).toEqual(["replaced", "replaced"]);
    // A request naming the entry is refused by the signer itself, in the same step as the signing.
    const [named] = await restarted.client.signBatch([cut], { expectEntry: seen });
    expect(named).toMatchObject({ ok: false, refusal: { code: "AUDIT_ENTRY_NOT_HELD" } });
    const log = readFileSync(s.auditPath, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(log.filter((l) => l.decision === "signed" && l.intent.intentId === cut.intent.intentId)).toEqual(
      [],
    );
    expect(log.at(-1)).toMatchObject({ decision: "refused", code: "AUDIT_ENTRY_NOT_HELD" });
    await restarted.stop();
  }, 60_000);
});
