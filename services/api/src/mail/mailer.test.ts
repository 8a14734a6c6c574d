import { createLogger } from "@gateway/logging";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMailer } from "./mailer.js";

let catcher: MailCatcher;
beforeAll(async () => {
  catcher = await createMailCatcher();
});
afterAll(() => catcher.close());

function captureLog() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    name: "test",
    level: "info",
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { log, lines };
}

describe("createMailer", () => {
  it("delivers to SMTP_URL", async () => {
    const { log } = captureLog();
    const mailer = createMailer({ smtpUrl: catcher.smtpUrl, from: "Gateway <no-reply@gateway.test>", log });
    await mailer.send({ to: "Owner@Example.com", subject: "Hello 123456", text: "code 123456" });
    const mail = await catcher.waitForMail({ to: "owner@example.com" });
    expect(mail.subject).toBe("Hello 123456");
    expect(mail.text.trim()).toBe("code 123456");
    expect(mail.from).toContain("no-reply@gateway.test");
  });

  it("without SMTP_URL logs that the mail was not sent, never its body", async () => {
    const { log, lines } = captureLog();
    const mailer = createMailer({ smtpUrl: undefined, from: "x@y.z", log });
    await mailer.send({ to: "a@example.com", subject: "Verify", text: "secret code 654321" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ to: "a@example.com", msg: "mail not sent: SMTP_URL is not set" });
    expect(JSON.stringify(lines)).not.toContain("654321");
  });

  it("rejects when the SMTP server is unreachable", async () => {
    const { log } = captureLog();
    const mailer = createMailer({ smtpUrl: "smtp://127.0.0.1:1", from: "x@y.z", log });
    await expect(mailer.send({ to: "a@example.com", subject: "s", text: "t" })).rejects.toThrow();
  });
});
