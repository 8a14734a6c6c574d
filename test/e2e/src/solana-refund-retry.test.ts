// The operator's way on for a refund that landed but failed on chain, end to end on the local
// Solana network: the refund of a transfer that arrived after expiry (returned in full) is made to
// fail (the customer's token account is frozen while it is sent), settlement's own next attempt is
// refused by the signer (OVER_ATTESTED), `npm run retry-refund` attests the failure with the
// watcher's key and sends the refund again, and the customer gets the transfer back exactly once.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { attemptIntentId } from "@gateway/chain-solana";
import { waitFor } from "@gateway/testkit";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  createLivePayment,
  eventsOf,
  payToken,
  registered,
  type SolanaHarness,
  startSolanaHarness,
  statusOf,
  tokenBalance,
} from "./solana-harness.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");
let h: SolanaHarness;

beforeAll(async () => {
  h = await startSolanaHarness();
});
afterAll(async () => {
  await h?.close();
});

/** Sets the SPL token account's state byte (offset 108): 1 initialized, 2 frozen. */
function setFrozen(owner: PublicKey, frozen: boolean) {
  const ata = getAssociatedTokenAddressSync(new PublicKey(h.net.mints.USDC), owner).toBase58();
  const svm = h.net.chain.svm;
  const account = svm.getAccount(ata as never);
  if (!account.exists) throw new Error(`no token account ${ata}`);
  const data = new Uint8Array(account.data);
  data[108] = frozen ? 2 : 1;
  svm.setAccount({ ...account, data });
}

function retryRefund(paymentId: string) {
  return promisify(execFile)("pnpm", ["exec", "tsx", "scripts/retry-refund.ts", paymentId, "--by", "e2e"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: h.db.url,
      BUS_PREFIX: h.testBus.prefix,
      SOLANA_RPC_URL: h.net.rpcUrl,
      WATCHER_ATTESTATION_KEY_ID: h.signer.approvers.watcher.keyId,
      WATCHER_ATTESTATION_SEED: h.signer.approvers.watcher.seedHex,
    },
  }).catch((error: { code: number; stdout: string }) => ({ stdout: error.stdout, code: error.code }));
}

/** The signer's audit log, entry by entry. */
const audit = (): any[] =>
  readFileSync(h.signer.auditPath, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

const refundOf = async (paymentId: string) =>
  (await h.db.sql<{ state: any }[]>`select state from payments where id = ${paymentId}`)[0]!.state.refunds[0];

it("a refund that failed on chain is retried by the operator and paid once", async () => {
  const payer = Keypair.generate();
  h.net.fund(payer.publicKey.toBase58(), "SOL", "1");
  h.net.fund(payer.publicKey.toBase58(), "USDC", "20");
  const payment = await createLivePayment(h, { expiresInMs: 800 });
  await waitFor(() => registered(h, payment.address), { what: "address registered with the provider" });
  await waitFor(async () => (await statusOf(h, payment.id)) === "expired", { what: "payment expired" });
  await payToken(h, payer, payment.address, "USDC", payment.amountDue);
  // From now on a transfer to the customer fails: the refund's simulation refuses it, so it waits.
  setFrozen(payer.publicKey, true);

  const refund = await waitFor(async () => refundOf(payment.id), { what: "late transfer's refund owed" });
  const intentId = `refund:${refund.refundId}`;
  const signed = await waitFor(
    async () =>
      (
        await h.db.sql<{ wire: Uint8Array | null; signature: string }[]>`
        select wire, signature from chain_intents where intent_id = ${intentId} and wire is not null`
      )[0],
    { what: "refund signed", timeoutMs: 20_000 },
  );
  // Sent without preflight it lands and fails: nothing moves, its durable nonce moves on.
  await h.connection.sendRawTransaction(signed.wire!, { skipPreflight: true });
  setFrozen(payer.publicKey, false);
  const failed = await waitFor(
    async () => (await h.connection.getSignatureStatuses([signed.signature])).value[0]?.err,
    { what: "refund failed on chain" },
  );
  expect(failed).toBeTruthy();
  // Settlement's own next attempt is refused: the failed refund used up the attested amount.
  await waitFor(
    () =>
      audit().some((e) => e.intent.intentId === attemptIntentId(intentId, 2) && e.code === "OVER_ATTESTED"),
    { what: "settlement's new attempt refused", timeoutMs: 20_000 },
  );

  const before = await tokenBalance(h, payer.publicKey.toBase58(), "USDC");
  expect(before).toBe(20_000_000n - payment.amountDue);

  const run = await retryRefund(payment.id);
  expect(run.stdout).toContain(`refund ${refund.refundId}: transaction ${signed.signature} failed on chain`);
  await waitFor(async () => (await statusOf(h, payment.id)) === "refunded", {
    what: "refund sent after the retry",
    timeoutMs: 30_000,
  });
  expect(await eventsOf(h, payment.id)).toEqual(["payment.expired", "payment.refunded"]);
  expect(await tokenBalance(h, payer.publicKey.toBase58(), "USDC")).toBe(before + payment.amountDue);
  const [retry] = await h.db.sql<{ attempt: number; txid: string; requested_by: string }[]>`
    select attempt, txid, requested_by from chain_intent_retries where intent_id = ${intentId}`;
  expect(retry).toEqual({ attempt: 2, txid: signed.signature, requested_by: "e2e" });
  const replaced = attemptIntentId(intentId, 1);
  expect(
    audit().filter((e) => e.decision === "signed" && e.intent.supersedes === replaced && e.ledger.first),
  ).toHaveLength(1);

  // Asking again moves nothing: the refund has its transaction.
  const again = await retryRefund(payment.id);
  expect(again.stdout).toContain("has no unsent refund");
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await tokenBalance(h, payer.publicKey.toBase58(), "USDC")).toBe(before + payment.amountDue);
});
