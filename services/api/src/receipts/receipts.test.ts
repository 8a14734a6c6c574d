import { randomUUID } from "node:crypto";
import type { RefundNoticeCommand } from "@gateway/contracts";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";

let api: TestApi;
let catcher: MailCatcher;
let settlement: Settlement;
let merchant: TestMerchant;

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl });
  settlement = await startTestSettlement(api);
  merchant = await createTestMerchant(api.db.sql, "Receipt Shop");
});
afterAll(async () => {
  await settlement?.stop();
  await api?.close();
  await catcher?.close();
});

async function payment(amount = 12.5): Promise<string> {
  const created = await call(api.baseUrl, "POST", "/payments", {
    body: { amount, currency: "USD" },
    headers: { "x-api-key": merchant.testKey },
  });
  const id = created.body.id as string;
  await call(api.baseUrl, "POST", `/payments/checkout/${id}/generate-wallet`, {
    body: { chain: "solana", coin: "USDC" },
  });
  return id;
}

const askReceipt = (id: string, email: unknown) =>
  call(api.baseUrl, "POST", `/payments/checkout/${id}/receipt`, { body: { email } });
const simulate = (id: string, outcome: string) =>
  call(api.baseUrl, "POST", `/payments/checkout/${id}/simulate`, { body: { outcome } });
const statusOf = async (id: string) =>
  (await call(api.baseUrl, "GET", `/payments/checkout/${id}`)).body.status as string;
const email = () => `c${randomUUID().slice(0, 8)}@example.test`;

/** Until the refund notices' consumer has handled every command up to `seq` of the stream. */
async function noticesHandled(seq: number): Promise<void> {
  const { jsm, topology } = api.deps.bus;
  await waitFor(async () => {
    const info = await jsm.consumers.info(topology.streams.commands, "refund-notices");
    return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0;
  });
}

/** The refund notice command the payment's actor published, and its stream sequence. */
async function noticeCommand(id: string): Promise<{ payload: RefundNoticeCommand; seq: number }> {
  const { jsm, topology } = api.deps.bus;
  const subject = topology.subjects.mail("refund");
  let found: { payload: RefundNoticeCommand; seq: number } | undefined;
  await waitFor(async () => {
    const [row] = await api.db.sql<{ payload: RefundNoticeCommand; pending: boolean }[]>`
      select payload, exists (select 1 from outbox_pending p where p.seq = o.seq) as pending
      from outbox o where subject = ${subject} and payload->>'payment_id' = ${id}`;
    if (!row || row.pending) return false;
    // The subject's newest message: ours, or one published after it.
    const last = await jsm.streams.getMessage(topology.streams.commands, { last_by_subj: subject });
    if (!last) return false;
    found = { payload: row.payload, seq: last.seq };
    return true;
  });
  return found!;
}

describe("receipts", () => {
  it("mails the receipt on completion, as text and HTML, once", async () => {
    const id = await payment();
    const to = email();
    const asked = await askReceipt(id, to);
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ email: to });
    await simulate(id, "paid");
    const mail = await catcher.waitForMail({ to, subject: /receipt/ });
    expect(mail.subject).toBe("[Test] Your receipt from Receipt Shop: 12.50 USD");
    expect(mail.text).toContain("Merchant: Receipt Shop");
    expect(mail.text).toContain("Amount: 12.50 USD");
    expect(mail.text).toContain("Paid: 12.50 USDC on solana");
    expect(mail.text).toContain("Transaction: none: a test payment moves no funds");
    expect(mail.text).toMatch(/Date: \d{1,2} \w+ \d{4}(,| at) \d{2}:\d{2} UTC/);
    expect(mail.text).toContain(`Payment: ${id}`);
    expect(mail.html).toContain('<th align="left" style="padding:4px 12px 4px 0">Merchant</th>');
    // The event may come again (a redelivery, another replica): still one mail.
    await api.deps.receipts.sendDue(id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(catcher.messages({ to })).toHaveLength(1);
  });

  it("mails a notice with each refund when the payment is refunded", async () => {
    const id = await payment(5);
    const to = email();
    await askReceipt(id, to);
    await simulate(id, "underpaid");
    const mail = await catcher.waitForMail({ to, subject: /returned/ });
    expect(mail.subject).toBe("[Test] Your payment to Receipt Shop was returned");
    expect(mail.text).toMatch(/Returned: \d+\.\d+ USDC/);
    expect(mail.text).toContain("Transaction: none: a test refund moves no funds");
    expect(mail.text).not.toContain("overpayment");
    expect(catcher.messages({ to }).map((m) => m.subject)).toEqual([mail.subject]);
  });

  it("mails the returned surplus of an overpayment on its own, once, beside the receipt", async () => {
    const id = await payment(12.5);
    const to = email();
    await askReceipt(id, to);
    await simulate(id, "overpaid");
    const notice = await catcher.waitForMail({ to, subject: /overpayment/ });
    // A tenth more than due was "sent": the surplus, not the payment, went back.
    expect(notice.subject).toBe("[Test] Your overpayment of 1.25 USDC to Receipt Shop was returned");
    expect(notice.text).toContain(
      "You sent Receipt Shop more than was due. Your overpayment of 1.25 USDC was returned to you; " +
        "your payment of 12.50 USDC stands.",
    );
    expect(notice.text).toContain("Merchant: Receipt Shop");
    expect(notice.text).toContain("Due: 12.50 USDC");
    expect(notice.text).toContain("Received: 13.75 USDC on solana");
    expect(notice.text).toContain("Returned: 1.25 USDC\n");
    // Test mode simulates the refund: no transaction exists to name or link.
    expect(notice.text).toContain("Transaction: none: a test refund moves no funds");
    expect(notice.text).toMatch(/Date: \d{1,2} \w+ \d{4}(,| at) \d{2}:\d{2} UTC/);
    expect(notice.text).toContain(`Payment: ${id}`);
    expect(notice.text).not.toContain("was not completed");
    expect(notice.html).toContain('<th align="left" style="padding:4px 12px 4px 0">Returned</th>');
    const receipt = await catcher.waitForMail({ to, subject: /receipt/ });
    expect(receipt.text).toContain("Overpaid: 1.25 USDC, returned to you with a notice of its own");

    // The command delivered again (a redelivery, a restart, another replica) and the checkout's
    // own call: still one notice.
    const { payload, seq } = await noticeCommand(id);
    await noticesHandled(seq);
    const again = await api.deps.bus.js.publish(
      api.deps.bus.topology.subjects.mail("refund"),
      JSON.stringify(payload),
      {
        msgID: `redelivered:${payload.refund_id}`,
      },
    );
    await noticesHandled(again.seq);
    await api.deps.receipts.sendDue(id);
    expect(
      catcher
        .messages({ to })
        .map((m) => m.subject)
        .sort(),
    ).toEqual([
      "[Test] Your overpayment of 1.25 USDC to Receipt Shop was returned",
      "[Test] Your receipt from Receipt Shop: 12.50 USD",
    ]);
  });

  it("an address given after the surplus went back gets its notice with the receipt", async () => {
    const id = await payment(20);
    await simulate(id, "overpaid");
    // Handled while nobody had asked: nothing was sent, nothing was taken.
    await noticesHandled((await noticeCommand(id)).seq);
    const to = email();
    expect((await askReceipt(id, to)).status).toBe(200);
    expect(
      catcher
        .messages({ to })
        .map((m) => m.subject)
        .sort(),
    ).toEqual([
      "[Test] Your overpayment of 2.00 USDC to Receipt Shop was returned",
      "[Test] Your receipt from Receipt Shop: 20.00 USD",
    ]);
  });

  it("an address given after completion gets the receipt at once; a later one replaces an unsent one", async () => {
    const id = await payment(3);
    await simulate(id, "paid");
    await waitFor(async () => (await statusOf(id)) === "completed");
    const first = email();
    const second = email();
    const pending = await payment(4);
    await askReceipt(pending, first);
    await askReceipt(pending, second);
    await simulate(pending, "paid");
    await catcher.waitForMail({ to: second, subject: /receipt/ });
    expect(catcher.messages({ to: first })).toEqual([]);

    const late = email();
    expect((await askReceipt(id, late)).status).toBe(200);
    expect(catcher.messages({ to: late })).toHaveLength(1);
  });

  it("refuses a bad address or an unknown payment", async () => {
    const id = await payment(1);
    const bad = await askReceipt(id, "not an address");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "parameter_invalid", param: "email" });
    expect((await askReceipt(id, undefined)).body.error).toMatchObject({ code: "parameter_missing" });
    const unknown = await askReceipt(randomUUID(), email());
    expect(unknown.status).toBe(404);
  });
});
