import { randomUUID } from "node:crypto";
import type { EventMessage, Payout } from "@gateway/contracts";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addTestMember, createTestMerchant, type TestMerchant } from "../../test/merchant.js";
import { startTestApi, type TestApi } from "../../test/test-api.js";

let api: TestApi;
let catcher: MailCatcher;
let merchant: TestMerchant;
let admin: string;

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl });
  merchant = await createTestMerchant(api.db.sql, "Schedule Shop");
  admin = await addTestMember(api.db.sql, merchant.merchantId, "admin");
});
afterAll(async () => {
  await api?.close();
  await catcher?.close();
});

/** The event settlement publishes when a payout starts, as the notifier and the API read it. */
async function payoutProcessing(kind: Payout["kind"]): Promise<string> {
  const id = `po_${randomUUID().replaceAll("-", "")}`;
  const payout: Payout = {
    id,
    object: "payout",
    status: "processing",
    amount: "41.50",
    network_fee: "0.00",
    net_amount: "41.50",
    coin: "USDC",
    chain: "solana",
    destination: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
    transaction_hash: null,
    kind,
    mode: "live",
    is_test: false,
    simulated: false,
    failure_reason: null,
    created_at: new Date().toISOString(),
    completed_at: null,
  };
  const message: EventMessage = {
    merchant_id: merchant.merchantId,
    mode: "live",
    event: {
      id: `evt_${randomUUID().replaceAll("-", "")}`,
      type: "payout.processing",
      created_at: payout.created_at,
      is_test: false,
      data: { payout },
    },
  };
  const subject = api.deps.bus.topology.subjects.event("payout.processing");
  // Twice, as a redelivery or a second relay would: one notice all the same.
  for (const copy of ["a", "b"])
    await api.deps.bus.js.publish(subject, JSON.stringify(message), { msgID: `${id}-${copy}` });
  return id;
}

describe("the owners' notice of a scheduled payout", () => {
  it("mails every owner once when the day's scheduled payout starts, and nobody else", async () => {
    await payoutProcessing("scheduled");
    const owner = `${merchant.merchantId}@example.test`;
    const mail = await catcher.waitForMail({ to: owner, subject: /payout of 41\.50 USDC/ });
    expect(mail.text).toContain("The daily payout schedule requested a payout of 41.50 USDC on solana");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(catcher.messages({ to: owner })).toHaveLength(1);
    expect(catcher.messages({ to: `${admin}@example.test` })).toHaveLength(0);
  });

  it("leaves a payout a member asked for to the route that mailed it then", async () => {
    const id = await payoutProcessing("manual");
    await new Promise((resolve) => setTimeout(resolve, 800));
    const [row] = await api.db.sql`select 1 from payout_owner_notices where payout_id = ${id}`;
    expect(row).toBeUndefined();
  });
});
