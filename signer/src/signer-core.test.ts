// The tamper suite: each class of malicious or mistaken request is refused with its own
// code and leaves a "refused" line in the audit log; each valid intent is signed and the
// signature verifies with the chain's SDK.
import { readFileSync, writeFileSync } from "node:fs";
import {
  buildSolanaSweep,
  buildSolanaTransfer,
  buildSuiSweep,
  buildSuiTransfer,
  SOL_ASSET,
  solanaWireTransaction,
} from "@gateway/chain-tx";
import { type IntentInput, signApproval } from "@gateway/signer-client";
import { Chain, Mode, RefusalCode, type SignRequest } from "@gateway/signer-proto";
import { Inputs, Transaction as SuiTransaction, TransactionDataBuilder } from "@mysten/sui/transactions";
import { verifyTransactionSignature } from "@mysten/sui/verify";
import {
  createApproveInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_2022_PROGRAM_ID,
} from "@solana/spl-token";
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  Message,
  PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
  TransactionMessage,
} from "@solana/web3.js";
import bs58 from "bs58";
import { afterAll, describe, expect, it } from "vitest";
import {
  approve,
  BLOCKHASH,
  createTestSigner,
  durableNonce,
  nextIntentId,
  request,
  SUI,
  SUI_USDC,
  solanaSolPayout,
  solanaTokenSweep,
  suiCoin,
  suiGas,
  suiRefund,
  suiTokenSweep,
  testApprovers,
  USDC_MINT,
  verifyAuditText,
  wallets,
} from "../test/fixtures.js";
import { IndexIssuedError } from "./addresses.js";
import type { SignOutcome } from "./signer-core.js";

const signer = createTestSigner();
const { core, keyring, approvers } = signer;
afterAll(() => signer.close());

const sol = wallets(keyring, "solana");
const sui = wallets(keyring, "sui");
const attacker = Keypair.generate().publicKey;
const attackerSui = `0x${"ab".repeat(32)}`;
const pk = (address: string) => new PublicKey(address);
const usdc = pk(USDC_MINT);
const ata = (owner: string | PublicKey, mint = usdc, program?: PublicKey) =>
  getAssociatedTokenAddressSync(mint, typeof owner === "string" ? pk(owner) : owner, true, program);

function solanaMessage(feePayer: string, instructions: TransactionInstruction[]): Uint8Array {
  return new Uint8Array(
    new Transaction({ feePayer: pk(feePayer), recentBlockhash: BLOCKHASH })
      .add(...instructions)
      .serializeMessage(),
  );
}

/** The first instruction of a durable-nonce transaction, as the gas wallet advances it. */
function gasNonceAdvance() {
  return SystemProgram.nonceAdvance({
    noncePubkey: Keypair.generate().publicKey,
    authorizedPubkey: pk(sol.gas),
  });
}

function sweepIntent(
  index: number,
  amount: bigint,
  asset = USDC_MINT,
  mode: "live" | "test" = "live",
): IntentInput {
  return {
    intentId: nextIntentId("sweep"),
    chain: "solana",
    mode,
    asset,
    amount,
    kind: "sweep",
    depositIndex: index,
  };
}

function lastAuditLine(): Record<string, unknown> {
  const lines = readFileSync(signer.auditPath, "utf8").trim().split("\n");
  return JSON.parse(lines.at(-1)!);
}

function expectRefused(outcome: SignOutcome, code: RefusalCode, intentId: string) {
  if (outcome.ok) throw new Error(`expected a refusal with ${RefusalCode[code]}, but it was signed`);
  expect(RefusalCode[outcome.refusal.code]).toBe(RefusalCode[code]);
  const line = lastAuditLine();
  expect(line.decision).toBe("refused");
  expect(line.code).toBe(RefusalCode[code]);
  expect((line.intent as { intentId: string }).intentId).toBe(intentId);
}

function decide(intent: IntentInput, tx: Uint8Array, objects: Uint8Array[] = []): SignOutcome {
  return core.decide(request(intent, tx, objects));
}

function signed(outcome: SignOutcome) {
  if (!outcome.ok)
    throw new Error(`refused: ${RefusalCode[outcome.refusal.code]}: ${outcome.refusal.reason}`);
  expect(lastAuditLine().decision).toBe("signed");
  return outcome.response;
}

function expectSolanaSignaturesVerify(
  message: Uint8Array,
  signatures: { address: string; signature: Uint8Array }[],
) {
  const tx = Transaction.populate(Message.from(Buffer.from(message)));
  for (const s of signatures) tx.addSignature(pk(s.address), Buffer.from(s.signature));
  expect(tx.verifySignatures()).toBe(true);
  expect(solanaWireTransaction(message, signatures).length).toBeGreaterThan(message.length);
}

async function expectSuiSignaturesVerify(
  bytes: Uint8Array,
  signatures: { address: string; serialized: string }[],
) {
  for (const s of signatures) {
    const publicKey = await verifyTransactionSignature(bytes, s.serialized, { address: s.address });
    expect(publicKey.toSuiAddress()).toBe(s.address);
  }
}

describe("valid intents are signed and verify with the chain SDK", () => {
  it("Solana token sweep with compute budget and close to the gas wallet", () => {
    const { intent, tx } = solanaTokenSweep(keyring, 3);
    const response = signed(decide(intent, tx));
    expect(response.signatures.map((s) => s.address)).toEqual([sol.gas, sol.deposit(3)]);
    expectSolanaSignaturesVerify(tx, response.signatures);
  });

  it("Solana SOL sweep", () => {
    const intent = sweepIntent(4, 7_000_000n, SOL_ASSET);
    const tx = buildSolanaSweep({
      asset: SOL_ASSET,
      depositOwner: sol.deposit(4),
      vault: sol.vault,
      gasWallet: sol.gas,
      amount: 7_000_000n,
      recentBlockhash: BLOCKHASH,
    });
    expectSolanaSignaturesVerify(tx, signed(decide(intent, tx)).signatures);
  });

  it("Solana token refund creating the destination's account, approved by settlement", () => {
    const destination = Keypair.generate().publicKey.toBase58();
    const intent = approve(approvers, {
      intentId: nextIntentId("rf"),
      chain: "solana",
      mode: "live",
      asset: USDC_MINT,
      amount: 900_000n,
      kind: "refund",
      destination,
      reference: "pay_1",
    });
    const tx = buildSolanaTransfer({
      asset: USDC_MINT,
      source: sol.vault,
      destination,
      gasWallet: sol.gas,
      amount: 900_000n,
      decimals: 6,
      ...durableNonce(keyring),
    });
    const response = signed(decide(intent, tx));
    expect(response.signatures.map((s) => s.address)).toEqual([sol.gas, sol.vault]);
    expectSolanaSignaturesVerify(tx, response.signatures);
  });

  it("Solana SOL payout approved by the API", () => {
    const { intent, tx } = solanaSolPayout(keyring, approvers);
    expectSolanaSignaturesVerify(tx, signed(decide(intent, tx)).signatures);
  });

  it("Sui token sweep: merge, split, transfer to the vault, sponsored by the gas wallet", async () => {
    const { intent, tx, objects } = await suiTokenSweep(keyring, 5);
    const response = signed(decide(intent, tx, objects));
    expect(response.signatures.map((s) => s.address)).toEqual([sui.deposit(5), sui.gas]);
    await expectSuiSignaturesVerify(tx, response.signatures);
  });

  it("Sui sweep of whole coins (no split)", async () => {
    const coins = [suiCoin(sui.deposit(6), SUI, 4_000n, 600), suiCoin(sui.deposit(6), SUI, 6_000n, 601)];
    const tx = await buildSuiSweep({
      depositAddress: sui.deposit(6),
      vault: sui.vault,
      coins: coins.map((c) => ({ ...c.ref, balance: 5_000n })),
      amount: 10_000n,
      gas: suiGas(keyring),
    });
    const intent: IntentInput = {
      intentId: nextIntentId("sweep"),
      chain: "sui",
      mode: "live",
      asset: SUI,
      amount: 10_000n,
      kind: "sweep",
      depositIndex: 6,
    };
    await expectSuiSignaturesVerify(
      tx,
      signed(
        decide(
          intent,
          tx,
          coins.map((c) => c.bcs),
        ),
      ).signatures,
    );
  });

  it("Sui refund from the vault's coins", async () => {
    const { intent, tx, objects } = await suiRefund(keyring, approvers);
    await expectSuiSignaturesVerify(tx, signed(decide(intent, tx, objects)).signatures);
  });

  it("Sui payout from the vault", async () => {
    const coins = [suiCoin(sui.vault, SUI_USDC, 9_000_000n, 700)];
    const destination = `0x${"cd".repeat(32)}`;
    const intent = approve(approvers, {
      intentId: nextIntentId("po"),
      chain: "sui",
      mode: "live",
      asset: SUI_USDC,
      amount: 8_000_000n,
      kind: "payout",
      destination,
      reference: "po_1",
    });
    const tx = await buildSuiTransfer({
      sender: sui.vault,
      recipient: destination,
      coins: coins.map((c) => c.ref),
      amount: 8_000_000n,
      gas: suiGas(keyring),
    });
    await expectSuiSignaturesVerify(
      tx,
      signed(
        decide(
          intent,
          tx,
          coins.map((c) => c.bcs),
        ),
      ).signatures,
    );
  });

  it("the same intent id again with a fresh blockhash gets the first transaction back, not a second", () => {
    const { intent, tx } = solanaTokenSweep(keyring, 8);
    const first = signed(decide(intent, tx));
    const fresh = buildSolanaSweep({
      asset: USDC_MINT,
      depositOwner: sol.deposit(8),
      vault: sol.vault,
      gasWallet: sol.gas,
      amount: intent.amount,
      decimals: 6,
      recentBlockhash: Keypair.generate().publicKey.toBase58(),
    });
    const again = signed(decide(intent, fresh));
    expect(Buffer.from(again.transaction).equals(Buffer.from(tx))).toBe(true);
    expect(again.signatures).toEqual(first.signatures);
    expectSolanaSignaturesVerify(again.transaction, again.signatures);
  });

  it("a first signing records the id the chain will know its transaction by; a repeat records none", async () => {
    const solana = solanaTokenSweep(keyring, 9);
    const first = signed(decide(solana.intent, solana.tx));
    const wire = Transaction.populate(Message.from(Buffer.from(solana.tx)));
    for (const s of first.signatures) wire.addSignature(pk(s.address), Buffer.from(s.signature));
    const txid = () => bs58.encode(Buffer.from(String(lastAuditLine().txidBase64), "base64"));
    expect(txid()).toBe(bs58.encode(wire.signature!));
    signed(decide(solana.intent, solana.tx));
    expect(lastAuditLine().txidBase64).toBeUndefined();

    const suiSweep = await suiTokenSweep(keyring, 10);
    signed(decide(suiSweep.intent, suiSweep.tx, suiSweep.objects));
    expect(txid()).toBe(TransactionDataBuilder.getDigestFromBytes(suiSweep.tx));
  });
});

describe("tamper suite: Solana", () => {
  const index = 11;
  const owner = sol.deposit(index);
  const transfer = (to = ata(sol.vault), amount = 2_500_000n, mint = usdc, from = ata(owner)) =>
    createTransferCheckedInstruction(from, mint, to, pk(owner), amount, 6);

  it("1. other destination", () => {
    const intent = sweepIntent(index, 2_500_000n);
    expectRefused(
      decide(intent, solanaMessage(sol.gas, [transfer(ata(attacker))])),
      RefusalCode.WRONG_DESTINATION,
      intent.intentId,
    );
  });

  it("2. other amount", () => {
    const intent = sweepIntent(index, 2_500_000n);
    expectRefused(
      decide(intent, solanaMessage(sol.gas, [transfer(undefined, 2_500_001n)])),
      RefusalCode.WRONG_AMOUNT,
      intent.intentId,
    );
  });

  it("3. extra instruction (delegating the deposit's token account)", () => {
    const intent = sweepIntent(index, 2_500_000n);
    const delegate = createApproveInstruction(ata(owner), attacker, pk(owner), 10n ** 12n);
    expectRefused(
      decide(intent, solanaMessage(sol.gas, [delegate, transfer()])),
      RefusalCode.UNEXPECTED_INSTRUCTION,
      intent.intentId,
    );
  });

  it("4. extra signer", () => {
    const intent = sweepIntent(index, 2_500_000n);
    const ix = transfer();
    ix.keys.push({ pubkey: attacker, isSigner: true, isWritable: false });
    expectRefused(
      decide(intent, solanaMessage(sol.gas, [ix])),
      RefusalCode.UNEXPECTED_SIGNER,
      intent.intentId,
    );
  });

  it("5. other fee payer (the deposit pays)", () => {
    const intent = sweepIntent(index, 2_500_000n);
    expectRefused(
      decide(intent, solanaMessage(owner, [transfer()])),
      RefusalCode.WRONG_FEE_PAYER,
      intent.intentId,
    );
  });

  it("6. other mint", () => {
    const otherMint = Keypair.generate().publicKey;
    const intent = sweepIntent(index, 2_500_000n);
    const ix = transfer(ata(sol.vault, otherMint), 2_500_000n, otherMint, ata(owner, otherMint));
    expectRefused(decide(intent, solanaMessage(sol.gas, [ix])), RefusalCode.WRONG_ASSET, intent.intentId);
  });

  it("7. other program (Token-2022 instead of SPL Token)", () => {
    const intent = sweepIntent(index, 2_500_000n);
    const ix = createTransferCheckedInstruction(
      ata(owner, usdc, TOKEN_2022_PROGRAM_ID),
      usdc,
      ata(sol.vault, usdc, TOKEN_2022_PROGRAM_ID),
      pk(owner),
      2_500_000n,
      6,
      [],
      TOKEN_2022_PROGRAM_ID,
    );
    expectRefused(
      decide(intent, solanaMessage(sol.gas, [ix])),
      RefusalCode.UNEXPECTED_PROGRAM,
      intent.intentId,
    );
  });

  it("8. closing the deposit account to another account", () => {
    const intent = sweepIntent(index, 2_500_000n);
    const close = createCloseAccountInstruction(ata(owner), attacker, pk(owner));
    expectRefused(
      decide(intent, solanaMessage(sol.gas, [transfer(), close])),
      RefusalCode.WRONG_CLOSE_DESTINATION,
      intent.intentId,
    );
  });

  it("9. priority fee over the cap (drains the gas wallet)", () => {
    const intent = sweepIntent(index, 2_500_000n);
    const budget = [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 1_400_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000n }),
    ];
    expectRefused(
      decide(intent, solanaMessage(sol.gas, [...budget, transfer()])),
      RefusalCode.FEE_OVER_CAP,
      intent.intentId,
    );
  });

  it("10. funds of another deposit than the intent's", () => {
    const intent = sweepIntent(index + 1, 2_500_000n);
    expectRefused(
      decide(intent, solanaMessage(sol.gas, [transfer()])),
      RefusalCode.UNEXPECTED_SIGNER,
      intent.intentId,
    );
  });

  it("11. test-mode intent over live wallets", () => {
    const intent = sweepIntent(index, 2_500_000n, USDC_MINT, "test");
    expectRefused(
      decide(intent, solanaMessage(sol.gas, [transfer()])),
      RefusalCode.WRONG_FEE_PAYER,
      intent.intentId,
    );
  });

  it("12. address lookup tables (accounts the signer cannot see)", () => {
    const intent = sweepIntent(index, 2_500_000n);
    const table = new AddressLookupTableAccount({
      key: Keypair.generate().publicKey,
      state: {
        deactivationSlot: 2n ** 64n - 1n,
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: [ata(sol.vault)],
      },
    });
    const message = new TransactionMessage({
      payerKey: pk(sol.gas),
      recentBlockhash: BLOCKHASH,
      instructions: [transfer()],
    }).compileToV0Message([table]);
    expectRefused(decide(intent, message.serialize()), RefusalCode.UNSUPPORTED_FEATURE, intent.intentId);
  });

  it("13. bytes that are not a transaction", () => {
    const intent = sweepIntent(index, 2_500_000n);
    expectRefused(
      decide(intent, new Uint8Array([1, 2, 3])),
      RefusalCode.MALFORMED_TRANSACTION,
      intent.intentId,
    );
  });

  it("14. a payout's durable nonce advanced by the vault instead of the gas wallet", () => {
    const { intent } = solanaSolPayout(keyring, approvers);
    if (intent.kind !== "payout" && intent.kind !== "refund") throw new Error("unreachable");
    const nonce = SystemProgram.nonceAdvance({
      noncePubkey: Keypair.generate().publicKey,
      authorizedPubkey: pk(sol.vault),
    });
    const pay = SystemProgram.transfer({
      fromPubkey: pk(sol.vault),
      toPubkey: pk(intent.destination),
      lamports: intent.amount,
    });
    expectRefused(
      decide(intent, solanaMessage(sol.gas, [nonce, pay])),
      RefusalCode.UNEXPECTED_INSTRUCTION,
      intent.intentId,
    );
  });

  it("15. payout's token account created for another owner", () => {
    const destination = Keypair.generate().publicKey.toBase58();
    const intent = approve(approvers, {
      intentId: nextIntentId("po"),
      chain: "solana",
      mode: "live",
      asset: USDC_MINT,
      amount: 10n,
      kind: "payout",
      destination,
      reference: "po_2",
    });
    const create = createAssociatedTokenAccountIdempotentInstruction(
      pk(sol.gas),
      ata(attacker),
      attacker,
      usdc,
    );
    const pay = createTransferCheckedInstruction(ata(sol.vault), usdc, ata(attacker), pk(sol.vault), 10n, 6);
    expectRefused(
      decide(intent, solanaMessage(sol.gas, [gasNonceAdvance(), create, pay])),
      RefusalCode.WRONG_DESTINATION,
      intent.intentId,
    );
  });
});

describe("tamper suite: approvals, caps and replay", () => {
  it("16. payout without an approval", () => {
    const { intent, tx } = solanaSolPayout(keyring, approvers);
    const bare = { ...intent, approval: undefined };
    expectRefused(decide(bare, tx), RefusalCode.APPROVAL_MISSING, intent.intentId);
  });

  it("17. forged approval (right key id, wrong key)", () => {
    const { intent, tx } = solanaSolPayout(keyring, approvers);
    const forger = testApprovers().api;
    const forged = { ...intent, approval: signApproval({ intent, keyId: "api-1", privateKey: forger.key }) };
    expectRefused(decide(forged, tx), RefusalCode.APPROVAL_INVALID, intent.intentId);
  });

  it("18. approval made for another destination", () => {
    const { intent, tx } = solanaSolPayout(keyring, approvers);
    if (intent.kind !== "payout" && intent.kind !== "refund") throw new Error("unreachable");
    const approvedElsewhere = approve(approvers, { ...intent, destination: attacker.toBase58() });
    // The attacker keeps the approval but the transaction pays its own address: the
    // approval no longer covers the intent it is attached to.
    const swapped = { ...approvedElsewhere, destination: intent.destination };
    expectRefused(decide(swapped, tx), RefusalCode.APPROVAL_INVALID, intent.intentId);
  });

  it("19. refund key used to approve a payout", () => {
    const { intent, tx } = solanaSolPayout(keyring, approvers);
    const wrongRole = {
      ...intent,
      approval: signApproval({ intent, keyId: "settlement-1", privateKey: approvers.settlement.key }),
    };
    expectRefused(decide(wrongRole, tx), RefusalCode.APPROVAL_INVALID, intent.intentId);
  });

  it("20. amount over the per-intent cap", () => {
    const { intent, tx } = solanaSolPayout(keyring, approvers, 1_000_000_001n);
    expectRefused(decide(intent, tx), RefusalCode.INTENT_CAP_EXCEEDED, intent.intentId);
  });

  it("21. amount over the per-day cap", () => {
    const capped = createTestSigner({ caps: new Map([["solana:SOL", { perIntent: 600n, perDay: 1_000n }]]) });
    try {
      const first = solanaSolPayout(capped.keyring, capped.approvers, 600n);
      expect(capped.core.decide(request(first.intent, first.tx)).ok).toBe(true);
      const second = solanaSolPayout(capped.keyring, capped.approvers, 600n);
      const outcome = capped.core.decide(request(second.intent, second.tx));
      expect(outcome.ok ? undefined : RefusalCode[outcome.refusal.code]).toBe("DAILY_CAP_EXCEEDED");
    } finally {
      capped.close();
    }
  });

  it("22. replayed intent id with another amount", () => {
    const { intent, tx } = solanaTokenSweep(keyring, 12);
    signed(decide(intent, tx));
    const again = solanaTokenSweep(keyring, 12, 9_999_999n, intent.intentId);
    expectRefused(decide(again.intent, again.tx), RefusalCode.REPLAY, intent.intentId);
  });

  it("23. replayed intent id with another destination, after a restart", async () => {
    const first = createTestSigner({ approvers });
    const { intent, tx } = solanaSolPayout(keyring, approvers);
    expect(first.core.decide(request(intent, tx)).ok).toBe(true);
    await first.core.sync();
    first.close();
    if (intent.kind !== "payout" && intent.kind !== "refund") throw new Error("unreachable");
    const restarted = createTestSigner({ dir: first.dir, approvers });
    try {
      const other = Keypair.generate().publicKey.toBase58();
      const moved = approve(approvers, { ...intent, destination: other });
      const otherTx = buildSolanaTransfer({
        asset: SOL_ASSET,
        source: sol.vault,
        destination: other,
        gasWallet: sol.gas,
        amount: intent.amount,
        recentBlockhash: BLOCKHASH,
      });
      const outcome = restarted.core.decide(request(moved, otherTx));
      expect(outcome.ok ? undefined : RefusalCode[outcome.refusal.code]).toBe("REPLAY");
    } finally {
      restarted.close();
    }
  });
});

describe("deposit indices and repeats after a restore of the database", () => {
  it("hands a deposit index out once, ever, across a restart, and names the highest", async () => {
    const first = createTestSigner();
    const address = first.core.deriveDepositAddress(Chain.SOLANA, Mode.LIVE, 40);
    first.core.deriveDepositAddress(Chain.SOLANA, Mode.LIVE, 41);
    // Another branch has its own indices.
    first.core.deriveDepositAddress(Chain.SUI, Mode.LIVE, 40);
    await first.core.sync();
    first.close();
    const restarted = createTestSigner({ dir: first.dir });
    try {
      const again = (() => {
        try {
          return restarted.core.deriveDepositAddress(Chain.SOLANA, Mode.LIVE, 40);
        } catch (error) {
          return error;
        }
      })();
      expect(again).toBeInstanceOf(IndexIssuedError);
      expect((again as IndexIssuedError).highest).toBe(41);
      expect(restarted.core.deriveDepositAddress(Chain.SOLANA, Mode.TEST, 40)).not.toBe(address);
      expect(restarted.core.deriveDepositAddress(Chain.SOLANA, Mode.LIVE, 42)).toBe(
        keyring.key("solana", "deposit", "live", 42).address,
      );
      await restarted.core.sync();
      const entries = readFileSync(restarted.auditPath, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(entries.filter((e) => e.decision === "address").map((e) => [e.chain, e.mode, e.index])).toEqual([
        ["solana", "live", 40],
        ["solana", "live", 41],
        ["sui", "live", 40],
        ["solana", "test", 40],
        ["solana", "live", 42],
      ]);
    } finally {
      restarted.close();
    }
  });

  it("returns a bound payout again without its approval, but signs no new one without one", () => {
    const { intent, tx } = solanaSolPayout(keyring, approvers);
    const first = signed(decide(intent, tx));
    // A payout put back after a restore of PostgreSQL has lost its approval: the repeat is the
    // transaction signed the first time, and nothing else.
    const bare = { ...intent, approval: undefined } as IntentInput;
    const again = signed(decide(bare, solanaSolPayout(keyring, approvers).tx));
    expect(Buffer.from(again.transaction)).toEqual(Buffer.from(first.transaction));
    const fresh = solanaSolPayout(keyring, approvers);
    expectRefused(
      decide({ ...fresh.intent, approval: undefined } as IntentInput, fresh.tx),
      RefusalCode.APPROVAL_MISSING,
      fresh.intent.intentId,
    );
  });
});

describe("tamper suite: Sui", () => {
  const index = 21;
  const owner = sui.deposit(index);
  const coins = [suiCoin(owner, SUI_USDC, 5_000_000n, 2100), suiCoin(owner, SUI_USDC, 1_000_000n, 2101)];
  const intent = (amount = 4_000_000n): IntentInput => ({
    intentId: nextIntentId("sweep"),
    chain: "sui",
    mode: "live",
    asset: SUI_USDC,
    amount,
    kind: "sweep",
    depositIndex: index,
  });
  const build = (
    edit: (tx: SuiTransaction) => void,
    options: { sender?: string; gasOwner?: string; budget?: bigint } = {},
  ) => {
    const tx = new SuiTransaction();
    tx.setSender(options.sender ?? owner);
    const gas = suiGas(keyring, options.budget ?? 10_000_000n);
    tx.setGasOwner(options.gasOwner ?? gas.gasOwner);
    tx.setGasPayment(gas.payment.map((p) => ({ ...p, version: String(p.version) })));
    tx.setGasPrice(gas.price);
    tx.setGasBudget(gas.budget);
    edit(tx);
    return tx.build();
  };
  const honest = (tx: SuiTransaction, recipient = sui.vault, amount = 4_000_000n) => {
    const [part] = tx.splitCoins(tx.object(Inputs.ObjectRef(coins[0]!.ref)), [amount]);
    tx.transferObjects([part!], recipient);
  };
  const objects = coins.map((c) => c.bcs);

  it("24. gas budget over the cap", async () => {
    const i = intent();
    expectRefused(
      decide(i, await build((tx) => honest(tx), { budget: 60_000_000n }), objects),
      RefusalCode.FEE_OVER_CAP,
      i.intentId,
    );
  });

  it("25. deposit pays its own gas (other gas owner)", async () => {
    const i = intent();
    expectRefused(
      decide(i, await build((tx) => honest(tx), { gasOwner: owner }), objects),
      RefusalCode.WRONG_GAS_OWNER,
      i.intentId,
    );
  });

  it("26. other sender", async () => {
    const i = intent();
    expectRefused(
      decide(i, await build((tx) => honest(tx), { sender: sui.deposit(index + 1) }), objects),
      RefusalCode.WRONG_SENDER,
      i.intentId,
    );
  });

  it("27. coins to another address", async () => {
    const i = intent();
    expectRefused(
      decide(i, await build((tx) => honest(tx, attackerSui)), objects),
      RefusalCode.WRONG_DESTINATION,
      i.intentId,
    );
  });

  it("28. remainder split off to another address", async () => {
    const i = intent();
    const tx = await build((tx) => {
      const coin = tx.object(Inputs.ObjectRef(coins[0]!.ref));
      const [mine, theirs] = tx.splitCoins(coin, [4_000_000n, 1_000_000n]);
      tx.transferObjects([mine!], sui.vault);
      tx.transferObjects([theirs!], attackerSui);
    });
    expectRefused(decide(i, tx, objects), RefusalCode.WRONG_DESTINATION, i.intentId);
  });

  it("29. other amount", async () => {
    const i = intent();
    expectRefused(
      decide(i, await build((tx) => honest(tx, sui.vault, 4_000_001n)), objects),
      RefusalCode.WRONG_AMOUNT,
      i.intentId,
    );
  });

  it("30. forged object contents (digest does not match the reference)", async () => {
    const i = intent();
    const forged = suiCoin(owner, SUI_USDC, 50_000_000n, 2100).bcs; // same id, inflated balance
    expectRefused(
      decide(i, await build((tx) => honest(tx)), [forged]),
      RefusalCode.OBJECT_MISMATCH,
      i.intentId,
    );
  });

  it("31. coin of another type than the intent's", async () => {
    const i = intent();
    const suiCoinObject = suiCoin(owner, SUI, 5_000_000n, 2102);
    const tx = await build((tx) => {
      const [part] = tx.splitCoins(tx.object(Inputs.ObjectRef(suiCoinObject.ref)), [4_000_000n]);
      tx.transferObjects([part!], sui.vault);
    });
    expectRefused(decide(i, tx, [suiCoinObject.bcs]), RefusalCode.WRONG_ASSET, i.intentId);
  });

  it("32. spending the sponsor's gas coin", async () => {
    const i = intent();
    const tx = await build((tx) => {
      const [part] = tx.splitCoins(tx.gas, [4_000_000n]);
      tx.transferObjects([part!], sui.vault);
    });
    expectRefused(decide(i, tx, objects), RefusalCode.UNEXPECTED_INSTRUCTION, i.intentId);
  });

  it("33. a Move call", async () => {
    const i = intent();
    const tx = await build((tx) => {
      honest(tx);
      tx.moveCall({ target: "0x2::coin::zero", typeArguments: [SUI_USDC] });
    });
    expectRefused(decide(i, tx, objects), RefusalCode.UNEXPECTED_PROGRAM, i.intentId);
  });

  it("34. object contents withheld", async () => {
    const i = intent();
    expectRefused(decide(i, await build((tx) => honest(tx)), []), RefusalCode.OBJECT_MISMATCH, i.intentId);
  });

  it("35. coin owned by someone else (the vault's coin in a sweep)", async () => {
    const i = intent();
    const vaultCoin = suiCoin(sui.vault, SUI_USDC, 5_000_000n, 2103);
    const tx = await build((tx) => {
      const [part] = tx.splitCoins(tx.object(Inputs.ObjectRef(vaultCoin.ref)), [4_000_000n]);
      tx.transferObjects([part!], sui.vault);
    });
    expectRefused(decide(i, tx, [vaultCoin.bcs]), RefusalCode.WRONG_SOURCE, i.intentId);
  });
});

describe("audit log", () => {
  it("chains every decision and detects an edited line", async () => {
    await core.sync();
    const contents = readFileSync(signer.auditPath, "utf8");
    const result = verifyAuditText(contents);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.entries).toBeGreaterThanOrEqual(40);
    const edited = contents.replace(/"amount":"2500000"/, '"amount":"2500001"');
    expect(edited).not.toBe(contents);
    const broken = verifyAuditText(edited);
    expect(broken.ok).toBe(false);
    const lines = contents.trim().split("\n");
    lines.splice(3, 1);
    expect(verifyAuditText(`${lines.join("\n")}\n`).ok).toBe(false);
    writeFileSync(`${signer.auditPath}.copy`, contents);
  });

  it("never records key material or approval signatures", () => {
    const contents = readFileSync(signer.auditPath, "utf8");
    expect(contents).not.toMatch(/"signature"|"serialized"|mnemonic|test test/i);
  });

  it("records a refusal for a request that is not even an intent", () => {
    const outcome = core.decide({
      ...request(sweepIntent(1, 1n), new Uint8Array()),
      intent: undefined,
    } as SignRequest);
    expect(outcome.ok).toBe(false);
    expect(lastAuditLine().code).toBe("INVALID_INTENT");
  });
});
