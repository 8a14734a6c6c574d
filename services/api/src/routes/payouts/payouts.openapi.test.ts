import { randomBytes, randomUUID } from "node:crypto";
import { creditPayment } from "@gateway/ledger";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import bs58 from "bs58";
import { afterAll, beforeAll, expect, it } from "vitest";
import { call, startTestApi, type TestApi } from "../../testing/test-api.js";
import { codeIn, createTestAccount } from "../auth/test-account.js";

let api: TestApi;
let catcher: MailCatcher;
let doc: any;
let ajv: Ajv2020;

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" });
  doc = (await call(api.baseUrl, "GET", "/openapi.json")).body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: "doc", components: doc.components }, "doc");
});
afterAll(async () => {
  await api?.close();
  await catcher?.close();
});

function conforms(path: string, method: string, res: { status: number; body: unknown }) {
  const response = doc.paths[path]?.[method]?.responses[String(res.status)];
  expect(response, `${method} ${path} documents status ${res.status}`).toBeDefined();
  const schema = response.content["application/json"].schema;
  const absolute = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
  const validate = ajv.compile(absolute);
  expect(validate(res.body), `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)}`).toBe(
    true,
  );
}

it("describes what the payout endpoints really answer", async () => {
  const owner = await createTestAccount(api.baseUrl, catcher);
  await api.db.sql.begin((tx) =>
    creditPayment(tx, {
      mode: "live",
      chain: "solana",
      coin: "USDC",
      paymentId: randomUUID(),
      merchantId: owner.merchantId,
      gross: 5_100_000n,
      fee: 100_000n,
      net: 5_000_000n,
    }),
  );
  const h = { headers: owner.auth };
  const schedule = await call(api.baseUrl, "PUT", "/payouts/schedule", { ...h, body: { hour: 3 } });
  conforms("/payouts/schedule", "put", schedule);
  conforms("/payouts/schedule", "get", await call(api.baseUrl, "GET", "/payouts/schedule", h));
  conforms("/payouts/context", "get", await call(api.baseUrl, "GET", "/payouts/context", h));
  const destination = bs58.encode(randomBytes(32));
  const otp = await call(api.baseUrl, "POST", "/payouts/request-otp", {
    ...h,
    body: { chain: "solana", destination_address: destination },
  });
  conforms("/payouts/request-otp", "post", otp);
  const mail = await catcher.waitForMail({ to: owner.email, subject: "payout code" });
  const body = { chain: "solana", coin_symbol: "USDC", amount: 2, destination_address: destination };
  const created = await call(api.baseUrl, "POST", "/payouts", {
    ...h,
    body: { ...body, otp: codeIn(mail.subject) },
  });
  conforms("/payouts", "post", created);
  conforms(
    "/payouts",
    "post",
    await call(api.baseUrl, "POST", "/payouts", { ...h, body: { ...body, otp: "000000" } }),
  );
  conforms("/payouts", "get", await call(api.baseUrl, "GET", "/payouts", h));
  conforms("/payouts/{id}", "get", await call(api.baseUrl, "GET", `/payouts/${created.body.id}`, h));
  conforms("/payouts/{id}", "get", await call(api.baseUrl, "GET", "/payouts/po_nope", h));
  conforms("/payouts", "get", await call(api.baseUrl, "GET", "/payouts", {}));
});
