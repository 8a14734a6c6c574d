// Builds a signer core on a throwaway folder with a fixed test mnemonic and trusted
// approver keys, plus valid sign requests for every intent kind; tests and benchmarks
// start from these and tamper with them.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import {
  buildSolanaSweep,
  buildSolanaTransfer,
  buildSuiSweep,
  buildSuiTransfer,
  encodeSuiCoinObject,
  SOL_ASSET,
} from "@gateway/chain-tx";
import {
  approverKeyFromSeed,
  generateApproverKey,
  type IntentInput,
  signApproval,
  toProtoIntent,
} from "@gateway/signer-client";
import type { ModeName } from "@gateway/signer-proto";
import { type SignRequest, SignRequestSchema } from "@gateway/signer-proto";
import { Keypair } from "@solana/web3.js";
import { pino } from "pino";
import { nonceAccountAddress } from "../src/chains/solana.js";
import { createKeyring, type Keyring } from "../src/keys/keyring.js";
import {
  type CheckpointPolicy,
  createSignerCoreWithRules,
  openSignerState,
  signerLimits,
} from "../src/open-state.js";
import type { PolicyRule } from "../src/policy/rule.js";
import { mnemonicToSeed } from "../src/sealed-seed.js";
import type { SignerCore } from "../src/signer-core.js";
import { type AuditLog, verifyAuditFile } from "../src/state/audit-log.js";
import type { CapTable, IntentLedger, LedgerLimits } from "../src/state/ledger.js";
import type { ChainName } from "../src/vocabulary.js";

export const TEST_MNEMONIC = "test test test test test test test test test test test junk";
export const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
export const SUI_USDC = "0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC";
export const SUI = "0x2::sui::SUI";
export const BLOCKHASH = "GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi";

/** A nonce value no other test used: a value bound to one intent is refused to every other. */
export function freshBlockhash(): string {
  return Keypair.generate().publicKey.toBase58();
}

/** Builder options spending the gas wallet's nonce account 0 at a fresh value. */
export function durableNonce(keyring: Keyring, mode: ModeName = "live") {
  return {
    nonceAccount: nonceAccountAddress(keyring.key("solana", "gas", mode).address, 0),
    recentBlockhash: freshBlockhash(),
  };
}

export function testApprovers() {
  const settlement = generateApproverKey();
  const api = generateApproverKey();
  return {
    settlement: { keyId: "settlement-1", key: approverKeyFromSeed(Buffer.from(settlement.seed, "hex")) },
    api: { keyId: "api-1", key: approverKeyFromSeed(Buffer.from(api.seed, "hex")) },
    trusted: [
      {
        keyId: "settlement-1",
        approves: "refund" as const,
        publicKey: Buffer.from(settlement.publicKey, "hex"),
      },
      { keyId: "api-1", approves: "payout" as const, publicKey: Buffer.from(api.publicKey, "hex") },
    ],
  };
}

export type TestApprovers = ReturnType<typeof testApprovers>;

export const DEFAULT_CAPS: CapTable = new Map([
  ["solana:*", { perIntent: 1_000_000_000n, perDay: 5_000_000_000n }],
  ["sui:*", { perIntent: 1_000_000_000n, perDay: 5_000_000_000n }],
]);

/** Generous budgets: tests that are about them set their own. */
export const TEST_LIMITS = signerLimits({
  maxSuiGasBudget: 50_000_000n,
  maxSuiGasPrice: 5_000n,
  maxSolanaPriorityFeeLamports: 100_000n,
  maxSolanaNonceAccounts: 64,
});

export const TEST_GAS_BUDGETS = new Map([
  ["solana", 10n ** 12n],
  ["sui", 10n ** 15n],
]);

export interface TestSigner {
  core: SignerCore;
  /** The core's audit log, for the transport's own refusals. */
  audit: AuditLog;
  ledger: IntentLedger;
  keyring: Keyring;
  approvers: TestApprovers;
  dir: string;
  auditPath: string;
  /** Writes a checkpoint now (the state beside the chain; the live segment archived). */
  checkpoint(): void;
  close(): void;
}

export function createTestSigner(
  options: {
    dir?: string;
    caps?: CapTable;
    approvers?: TestApprovers;
    ledger?: Partial<LedgerLimits>;
    now?: () => Date;
    rules?: PolicyRule[];
    checkpoints?: CheckpointPolicy;
  } = {},
): TestSigner {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "signer-test-"));
  const keyring = createKeyring({ seed: mnemonicToSeed(TEST_MNEMONIC) });
  const approvers = options.approvers ?? testApprovers();
  const auditPath = join(dir, "audit.jsonl");
  const state = openSignerState(
    auditPath,
    {
      caps: options.caps ?? DEFAULT_CAPS,
      gasBudgets: TEST_GAS_BUDGETS,
      maxSweepsPerDeposit: 8,
      ...options.ledger,
    },
    options.now,
    options.rules,
    options.checkpoints,
  );
  const { ledger } = state;
  // Tests read the log right after a decision: write each entry through at once.
  const log = state.audit;
  const audit: AuditLog = {
    append: (decision) => {
      const head = log.append(decision);
      log.flush();
      return head;
    },
    read: (place) => log.read(place),
    head: () => log.head(),
    hashAt: (seq) => log.hashAt(seq),
    flush: (durable) => log.flush(durable),
    sync: () => log.sync(),
    close: () => log.close(),
  };
  const core = createSignerCoreWithRules(
    {
      keyring,
      ledger,
      audit,
      issued: state.issued,
      limits: TEST_LIMITS,
      log: pino({ level: "silent" }),
      ...(options.now ? { now: options.now } : {}),
    },
    approvers.trusted,
    options.rules ?? [],
  );
  return {
    core,
    audit,
    ledger,
    keyring,
    approvers,
    dir,
    auditPath,
    checkpoint: () => void state.checkpoint(),
    close: () => audit.close(),
  };
}

let counter = 0;
export function nextIntentId(prefix = "int"): string {
  counter += 1;
  return `${prefix}_${process.pid}_${Date.now()}_${counter}`;
}

export function request(
  intent: IntentInput,
  unsignedTransaction: Uint8Array,
  suiObjects: Uint8Array[] = [],
): SignRequest {
  return create(SignRequestSchema, {
    intent: toProtoIntent(intent),
    unsignedTransaction,
    objects: suiObjects.map((bcs) => ({ bcs })),
  });
}

export function approve(approvers: TestApprovers, intent: IntentInput): IntentInput {
  if (intent.kind === "sweep" || intent.kind === "nonce_account") return intent;
  const approver = intent.kind === "refund" ? approvers.settlement : approvers.api;
  return { ...intent, approval: signApproval({ intent, keyId: approver.keyId, privateKey: approver.key }) };
}

export function wallets(keyring: Keyring, chain: ChainName, mode: ModeName = "live") {
  return {
    vault: keyring.key(chain, "vault", mode).address,
    gas: keyring.key(chain, "gas", mode).address,
    deposit: (index: number) => keyring.key(chain, "deposit", mode, index).address,
  };
}

export function solanaTokenSweep(
  keyring: Keyring,
  index: number,
  amount = 2_500_000n,
  intentId = nextIntentId("sweep"),
) {
  const w = wallets(keyring, "solana");
  const intent: IntentInput = {
    intentId,
    chain: "solana",
    mode: "live",
    asset: USDC_MINT,
    amount,
    kind: "sweep",
    depositIndex: index,
  };
  const tx = buildSolanaSweep({
    asset: USDC_MINT,
    depositOwner: w.deposit(index),
    vault: w.vault,
    gasWallet: w.gas,
    amount,
    decimals: 6,
    recentBlockhash: BLOCKHASH,
    closeDepositAccount: true,
    computeUnitLimit: 40_000,
    computeUnitPriceMicroLamports: 1_000n,
  });
  return { intent, tx };
}

export function solanaSolPayout(
  keyring: Keyring,
  approvers: TestApprovers,
  amount = 1_000_000n,
  destination = Keypair.generate().publicKey.toBase58(),
) {
  const w = wallets(keyring, "solana");
  const intent = approve(approvers, {
    intentId: nextIntentId("po"),
    chain: "solana",
    mode: "live",
    asset: SOL_ASSET,
    amount,
    kind: "payout",
    destination,
    reference: "po_test",
  });
  const tx = buildSolanaTransfer({
    asset: SOL_ASSET,
    source: w.vault,
    destination,
    gasWallet: w.gas,
    amount,
    ...durableNonce(keyring),
  });
  return { intent, tx };
}

export const suiId = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
let coinsMade = 0;

/**
 * A coin object no other test spent (the id is `n` plus a fresh count): the signer binds each
 * object version to the one intent whose transaction spends it.
 */
export function suiCoin(owner: string, coinType: string, balance: bigint, n: number) {
  coinsMade += 1;
  const objectId = suiId(n * 1_000_000 + coinsMade);
  return encodeSuiCoinObject({ objectId, version: 7n, owner, coinType, balance });
}

export function suiGas(keyring: Keyring, budget = 10_000_000n, mode: ModeName = "live") {
  const gasOwner = wallets(keyring, "sui", mode).gas;
  return { gasOwner, payment: [suiCoin(gasOwner, SUI, 10n ** 10n, 9_999).ref], price: 1_000n, budget };
}

export async function suiTokenSweep(keyring: Keyring, index: number, amount = 3_000_000n) {
  const w = wallets(keyring, "sui");
  const coins = [
    suiCoin(w.deposit(index), SUI_USDC, 2_000_000n, 100 + index * 2),
    suiCoin(w.deposit(index), SUI_USDC, 2_000_000n, 101 + index * 2),
  ];
  const intent: IntentInput = {
    intentId: nextIntentId("sweep"),
    chain: "sui",
    mode: "live",
    asset: SUI_USDC,
    amount,
    kind: "sweep",
    depositIndex: index,
  };
  const tx = await buildSuiSweep({
    depositAddress: w.deposit(index),
    vault: w.vault,
    coins: coins.map((c) => c.ref),
    amount,
    gas: suiGas(keyring),
  });
  return { intent, tx, objects: coins.map((c) => c.bcs) };
}

export async function suiRefund(keyring: Keyring, approvers: TestApprovers, amount = 1_500_000n) {
  const w = wallets(keyring, "sui");
  const destination = suiId(0xbeef);
  const coins = [suiCoin(w.vault, SUI, 5_000_000n, 500)];
  const intent = approve(approvers, {
    intentId: nextIntentId("rf"),
    chain: "sui",
    mode: "live",
    asset: SUI,
    amount,
    kind: "refund",
    destination,
    reference: "pay_test",
  });
  const tx = await buildSuiTransfer({
    sender: w.vault,
    recipient: destination,
    coins: coins.map((c) => c.ref),
    amount,
    gas: suiGas(keyring),
  });
  return { intent, tx, objects: coins.map((c) => c.bcs) };
}

/** `verifyAuditFile` over a log given as text (written to a file of its own, removed after). */
export function verifyAuditText(contents: string) {
  const dir = mkdtempSync(join(tmpdir(), "audit-text-"));
  try {
    const path = join(dir, "audit.jsonl");
    writeFileSync(path, contents);
    return verifyAuditFile(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
