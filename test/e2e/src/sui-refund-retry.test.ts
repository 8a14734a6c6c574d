// The operator's way on for a refund that executed but failed on chain, end to end on the local
// Sui network: the refund of a transfer that arrived after expiry (returned in full) is made to
// fail (the coin's issuer has put the customer on its deny list while it is sent), settlement's
// own next attempt is refused by the signer (OVER_ATTESTED), `npm run retry-refund` attests the
// failure with the watcher's key and sends the refund again, and the customer gets the transfer
// back exactly once.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { attemptIntentId } from "@gateway/chain-sui";
import { waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  balance,
  createLivePayment,
  customer,
  eventsOf,
  pay,
  type SuiHarness,
  startSuiHarness,
  statusOf,
} from "./sui-harness.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");
let h: SuiHarness;

beforeAll(async () => {
  h = await startSuiHarness();
});
afterAll(async () => {
  await h?.close();
});

function retryRefund(paymentId: string) {
  return promisify(execFile)("pnpm", ["exec", "tsx", "scripts/retry-refund.ts", paymentId, "--by", "e2e"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: h.db.url,
      BUS_PREFIX: h.testBus.prefix,
      SUI_GRPC_URL: h.net.url,
      SUI_NETWORK: "localnet",
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
  const payer = await customer(h, { USDC: 20_000_000n });
  const owner = payer.toSuiAddress();
  const payment = await createLivePayment(h, { expiresInMs: 800 });
  await waitFor(async () => (await statusOf(h, payment.id)) === "expired", { what: "payment expired" });
  await pay(h, payer, payment.address, "USDC", payment.amountDue);
  // From now on a transfer of USDC to the customer executes and fails: its refund will.
  h.net.deny(owner, "USDC");

  const refund = await waitFor(async () => refundOf(payment.id), { what: "late transfer's refund owed" });
  const intentId = `refund:${refund.refundId}`;
  const failed = await waitFor(
    async () => {
      const [first] = await h.db.sql<{ digest: string }[]>`
        select digest from sui_intent_attempts where intent_id = ${intentId} and attempt = 1`;
      if (!first) return undefined;
      const tx = await h.client.getTransaction({ digest: first.digest }).catch(() => undefined);
      return tx?.FailedTransaction ? first.digest : undefined;
    },
    { what: "refund failed on chain", timeoutMs: 20_000 },
  );
  h.net.deny(owner, "USDC", false);
  // Settlement's own next attempt is refused: the failed refund used up the attested amount.
  await waitFor(
    () =>
      audit().some((e) => e.intent.intentId === attemptIntentId(intentId, 2) && e.code === "OVER_ATTESTED"),
    { what: "settlement's new attempt refused", timeoutMs: 20_000 },
  );

  const before = await balance(h, owner, "USDC");
  expect(before).toBe(20_000_000n - payment.amountDue);

  const run = await retryRefund(payment.id);
  expect(run.stdout).toContain(`refund ${refund.refundId}: transaction ${failed} failed on chain`);
  await waitFor(async () => (await statusOf(h, payment.id)) === "refunded", {
    what: "refund sent after the retry",
    timeoutMs: 30_000,
  });
  expect(await eventsOf(h, payment.id)).toEqual(["payment.expired", "payment.refunded"]);
  expect(await balance(h, owner, "USDC")).toBe(before + payment.amountDue);
  const [retry] = await h.db.sql<{ attempt: number; txid: string; requested_by: string }[]>`
    select attempt, txid, requested_by from chain_intent_retries where intent_id = ${intentId}`;
  expect(retry).toEqual({ attempt: 2, txid: failed, requested_by: "e2e" });
  expect(
    audit().filter((e) => e.decision === "signed" && e.intent.supersedes === intentId && e.ledger.first),
  ).toHaveLength(1);

  // Asking again moves nothing: the refund has its transaction.
  const again = await retryRefund(payment.id);
  expect(again.stdout).toContain("has no unsent refund");
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await balance(h, owner, "USDC")).toBe(before + payment.amountDue);
});
