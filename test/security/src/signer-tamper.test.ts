// The signer tamper suite against the signer as deployed: a separate process over mutual TLS,
// reached only through the real client. Each tampered transaction or intent is refused with the
// reason the signer gives for it; the honest ones around them are signed, so the refusals are
// about the tampering and not about a broken set-up.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildSolanaSweep, buildSolanaTransfer, SOL_ASSET } from "@gateway/chain-tx";
import { nonceAccountAddress, writeDevCerts } from "@gateway/signer";
import {
  approverKeyFromSeed,
  createSignerClient,
  generateApproverKey,
  type IntentInput,
  type SignInput,
  signApproval,
  signDestinationApproval,
} from "@gateway/signer-client";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SignerProcess, startSignerProcess } from "./signer-process.js";

const MNEMONIC = "test test test test test test test test test test test junk";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const BLOCKHASH = "GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi";
const payoutApprover = generateApproverKey();
const refundApprover = generateApproverKey();
const strangerApprover = generateApproverKey();
const key = (seed: string) => approverKeyFromSeed(Buffer.from(seed, "hex"));

let signer: SignerProcess;
let live: { vault: string; gas: string };
let test: { vault: string; gas: string };
const attacker = Keypair.generate().publicKey.toBase58();
let n = 0;
const id = (p: string) => `${p}_sec_${process.pid}_${Date.now()}_${++n}`;

beforeAll(async () => {
  signer = await startSignerProcess({
    SIGNER_SEED_MNEMONIC: MNEMONIC,
    SIGNER_TRUSTED_APPROVERS: JSON.stringify([
      { keyId: "api-1", approves: "payout", publicKey: payoutApprover.publicKey },
      { keyId: "settlement-1", approves: "refund", publicKey: refundApprover.publicKey },
    ]),
    SIGNER_CAPS: JSON.stringify({
      "solana:*": { perIntent: "1000000000", perDay: "5000000000" },
      "sui:*": { perIntent: "1000000000", perDay: "5000000000" },
    }),
    // Destinations take effect at once here; signer-policy-payouts.test.ts covers the delay.
    SIGNER_PAYOUT_DESTINATION_DELAY_SECONDS: "0",
  });
  const book = await signer.client.getServiceAddresses();
  live = book.solana.live;
  test = book.solana.test;
}, 90_000);
afterAll(async () => {
  const output = signer?.output() ?? "";
  await signer?.stop();
  // The seed never reaches the signer's own output either.
  expect(output).not.toContain(MNEMONIC);
});

async function sweep(
  index: number,
  amount: bigint,
  over: Partial<Parameters<typeof buildSolanaSweep>[0]> = {},
  intentOver: Partial<IntentInput> = {},
): Promise<SignInput> {
  const owner = await signer.client.deriveDepositAddress({ chain: "solana", mode: "live", index });
  const intent = {
    intentId: id("sweep"),
    chain: "solana",
    mode: "live",
    asset: USDC,
    amount,
    kind: "sweep",
    depositIndex: index,
    ...intentOver,
  } as IntentInput;
  const unsignedTransaction = buildSolanaSweep({
    asset: USDC,
    depositOwner: owner,
    vault: live.vault,
    gasWallet: live.gas,
    amount,
    decimals: 6,
    recentBlockhash: BLOCKHASH,
    closeDepositAccount: true,
    computeUnitLimit: 40_000,
    computeUnitPriceMicroLamports: 1_000n,
    ...over,
  });
  return { intent, unsignedTransaction };
}

const MERCHANT = "mer_sec";

/** Puts `address` on the merchant's allow-list, as the API does after the e-mailed code. */
async function allow(address: string): Promise<void> {
  const destination = {
    merchantId: MERCHANT,
    chain: "solana" as const,
    mode: "live" as const,
    address,
    linked: false,
  };
  const approval = signDestinationApproval({
    destination,
    keyId: "api-1",
    privateKey: key(payoutApprover.seed),
    expiresAtMs: BigInt(Date.now() + 300_000),
  });
  await signer.client.requestPayoutDestination({ ...destination, approval });
}

function payout(
  amount: bigint,
  destination: string,
  approver: { keyId: string; seed: string } | null,
  txOver: Partial<Parameters<typeof buildSolanaTransfer>[0]> = {},
  intentId = id("po"),
): SignInput {
  const bare: IntentInput = {
    intentId,
    chain: "solana",
    mode: "live",
    asset: SOL_ASSET,
    amount,
    kind: "payout",
    destination,
    // A payout id is paid once: each intent here is its own payout.
    reference: intentId,
    merchantId: MERCHANT,
  };
  const intent = approver
    ? {
        ...bare,
        approval: signApproval({
          intent: bare,
          keyId: approver.keyId,
          privateKey: key(approver.seed),
          expiresAtMs: BigInt(Date.now() + 300_000),
        }),
      }
    : bare;
  const unsignedTransaction = buildSolanaTransfer({
    asset: SOL_ASSET,
    source: live.vault,
    destination,
    gasWallet: live.gas,
    amount,
    // Payouts spend a durable nonce; each value is bound to one intent only.
    nonceAccount: nonceAccountAddress(live.gas, 0),
    recentBlockhash: Keypair.generate().publicKey.toBase58(),
    ...txOver,
  });
  return { intent, unsignedTransaction };
}

async function outcomes(inputs: SignInput[]) {
  const results = await signer.client.signBatch(inputs);
  return results.map((r) => (r.ok ? "SIGNED" : r.refusal.code));
}

describe("signer tamper suite over mTLS against the signer process", () => {
  it("signs the honest sweep and payout (control)", async () => {
    const destination = Keypair.generate().publicKey.toBase58();
    await allow(destination);
    expect(
      await outcomes([
        await sweep(21, 2_500_000n),
        payout(1_000_000n, destination, { keyId: "api-1", seed: payoutApprover.seed }),
      ]),
    ).toEqual(["SIGNED", "SIGNED"]);
  });

  it("refuses every tampered Solana sweep", async () => {
    const otherMint = Keypair.generate().publicKey.toBase58();
    const honest = await sweep(22, 2_500_000n);
    const cases: [string, SignInput, string[]][] = [
      ["other destination", await sweep(22, 2_500_000n, { vault: attacker }), ["WRONG_DESTINATION"]],
      [
        "other amount",
        {
          ...(await sweep(22, 2_500_000n)),
          unsignedTransaction: (await sweep(22, 2_500_001n)).unsignedTransaction,
        },
        ["WRONG_AMOUNT"],
      ],
      [
        "deposit pays the fee",
        await sweep(22, 2_500_000n, {
          gasWallet: await signer.client.deriveDepositAddress({ chain: "solana", mode: "live", index: 22 }),
        }),
        ["WRONG_FEE_PAYER", "UNEXPECTED_SIGNER"],
      ],
      ["other mint", await sweep(22, 2_500_000n, { asset: otherMint }), ["WRONG_ASSET"]],
      [
        "priority fee over the cap",
        await sweep(22, 2_500_000n, {
          computeUnitLimit: 1_400_000,
          computeUnitPriceMicroLamports: 1_000_000n,
        }),
        ["FEE_OVER_CAP"],
      ],
      [
        "funds of another deposit",
        await sweep(22, 2_500_000n, {}, { depositIndex: 23 } as Partial<IntentInput>),
        ["UNEXPECTED_SIGNER"],
      ],
      [
        "test-mode intent over live wallets",
        await sweep(22, 2_500_000n, {}, { mode: "test" }),
        ["WRONG_FEE_PAYER", "UNEXPECTED_SIGNER", "WRONG_DESTINATION"],
      ],
      [
        "bytes that are not a transaction",
        { ...(await sweep(22, 2_500_000n)), unsignedTransaction: new Uint8Array([1, 2, 3]) },
        ["MALFORMED_TRANSACTION"],
      ],
      [
        "trailing bytes after the message",
        { ...honest, unsignedTransaction: new Uint8Array([...honest.unsignedTransaction, 0]) },
        ["MALFORMED_TRANSACTION"],
      ],
    ];
    const got = await outcomes(cases.map(([, input]) => input));
    cases.forEach(([name, , expected], i) => {
      expect(expected, `${name}: ${got[i]}`).toContain(got[i]);
    });
    expect(test.vault).not.toBe(live.vault);
  });

  it("refuses payouts with missing, forged, swapped or wrong-role approvals, over the caps, and replays", async () => {
    const destination = Keypair.generate().publicKey.toBase58();
    await allow(destination);
    const approved = payout(1_000_000n, destination, { keyId: "api-1", seed: payoutApprover.seed });
    const replayId = id("po");
    const first = payout(
      1_000_000n,
      destination,
      { keyId: "api-1", seed: payoutApprover.seed },
      {},
      replayId,
    );
    expect(await outcomes([first])).toEqual(["SIGNED"]);
    const cases: [string, SignInput, string[]][] = [
      // Without an approval a payout may only reach the merchant's linked wallet.
      ["no approval", payout(1_000_000n, destination, null), ["DESTINATION_NOT_ALLOWED"]],
      [
        "forged approval",
        payout(1_000_000n, destination, { keyId: "api-1", seed: strangerApprover.seed }),
        ["APPROVAL_INVALID"],
      ],
      [
        "unknown approver",
        payout(1_000_000n, destination, { keyId: "someone", seed: strangerApprover.seed }),
        ["APPROVAL_INVALID"],
      ],
      [
        "refund key approving a payout",
        payout(1_000_000n, destination, { keyId: "settlement-1", seed: refundApprover.seed }),
        ["APPROVAL_INVALID"],
      ],
      [
        "approval made for another destination",
        { ...approved, intent: { ...approved.intent, destination: attacker } as IntentInput },
        ["APPROVAL_INVALID"],
      ],
      [
        "transaction pays someone else than the approved intent",
        { ...approved, unsignedTransaction: payout(1_000_000n, attacker, null).unsignedTransaction },
        ["WRONG_DESTINATION"],
      ],
      [
        "over the per-intent cap",
        payout(2_000_000_000n, destination, { keyId: "api-1", seed: payoutApprover.seed }),
        ["INTENT_CAP_EXCEEDED"],
      ],
      [
        "replayed intent id with another amount",
        payout(1_000_001n, destination, { keyId: "api-1", seed: payoutApprover.seed }, {}, replayId),
        ["REPLAY"],
      ],
    ];
    const got = await outcomes(cases.map(([, input]) => input));
    cases.forEach(([name, , expected], i) => {
      expect(expected, `${name}: ${got[i]}`).toContain(got[i]);
    });
  });

  it("refuses a client without a certificate from the signer's CA", async () => {
    const foreign = writeDevCerts({
      dir: path.join(mkdtempSync(path.join(tmpdir(), "gw-sec-foreign-")), "certs"),
    });
    const impostor = createSignerClient({
      baseUrl: signer.url,
      // Trusts the real CA (so the server is accepted) but presents a certificate of another CA.
      tls: {
        ca: readFileSync(signer.certs.ca),
        cert: readFileSync(foreign.clients.settlement.cert),
        key: readFileSync(foreign.clients.settlement.key),
      },
    });
    try {
      await expect(impostor.getServiceAddresses()).rejects.toThrow();
    } finally {
      impostor.close();
    }
  });
});
