import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMailCatcher, type MailCatcher } from "./mail-catcher.js";

let catcher: MailCatcher;
beforeAll(async () => {
  catcher = await createMailCatcher();
});
afterAll(() => catcher.close());

/** A minimal SMTP client: the catcher must accept what any client sends, not only nodemailer. */
async function sendRaw(port: number, from: string, to: string, data: string): Promise<void> {
  const socket = net.connect(port, "127.0.0.1");
  socket.setEncoding("utf8");
  let buffer = "";
  const reply = () =>
    new Promise<string>((resolve, reject) => {
      const onData = (chunk: string) => {
        buffer += chunk;
        const lines = buffer.split("\r\n");
        const last = lines.findIndex((l) => /^\d{3} /.test(l));
        if (last >= 0) {
          socket.off("data", onData);
          buffer = lines.slice(last + 1).join("\r\n");
          resolve(lines[last]!);
        }
      };
      socket.on("data", onData);
      socket.once("error", reject);
    });
  const command = async (line: string) => {
    socket.write(`${line}\r\n`);
    return reply();
  };
  expect(await reply()).toMatch(/^220/);
  expect(await command("EHLO test")).toMatch(/^250/);
  expect(await command(`MAIL FROM:<${from}>`)).toMatch(/^250/);
  expect(await command(`RCPT TO:<${to}>`)).toMatch(/^250/);
  expect(await command("DATA")).toMatch(/^354/);
  expect(await command(`${data.replace(/\n/g, "\r\n")}\r\n.`)).toMatch(/^250/);
  await command("QUIT");
  socket.end();
}

describe("mail catcher", () => {
  it("keeps what it receives and serves it as JSON, newest first", async () => {
    await sendRaw(
      catcher.smtpPort,
      "app@example.com",
      "First@Example.com",
      "From: App <app@example.com>\nTo: first@example.com\nSubject: One\n\nbody one",
    );
    await sendRaw(
      catcher.smtpPort,
      "app@example.com",
      "first@example.com",
      "From: App <app@example.com>\nTo: first@example.com\nSubject: Two\n\nbody two",
    );
    const mail = await catcher.waitForMail({ to: "first@example.com", subject: "Two" });
    expect(mail.text.trim()).toBe("body two");

    const list = await fetch(`${catcher.httpUrl}/api/messages?to=first@example.com`).then(
      (r) => r.json() as Promise<{ data: { subject: string }[] }>,
    );
    expect(list.data.map((m) => m.subject)).toEqual(["Two", "One"]);
    const latest = await fetch(`${catcher.httpUrl}/api/messages/latest?to=FIRST@example.com`).then(
      (r) => r.json() as Promise<{ subject: string }>,
    );
    expect(latest.subject).toBe("Two");
    const none = await fetch(`${catcher.httpUrl}/api/messages/latest?to=nobody@example.com`);
    expect(none.status).toBe(404);
  });

  it("waits for a mail that has not arrived yet", async () => {
    const waiting = catcher.waitForMail({ to: "late@example.com", timeoutMs: 5000 });
    await sendRaw(catcher.smtpPort, "a@example.com", "late@example.com", "Subject: Late\n\nhi");
    expect((await waiting).subject).toBe("Late");
    await expect(catcher.waitForMail({ to: "never@example.com", timeoutMs: 50 })).rejects.toThrow(/no mail/);
  });

  it("renders mail as escaped text on its page and answers health checks", async () => {
    await sendRaw(
      catcher.smtpPort,
      "a@example.com",
      "html@example.com",
      "Subject: <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>",
    );
    await catcher.waitForMail({ to: "html@example.com" });
    const page = await fetch(catcher.httpUrl);
    const html = await page.text();
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<img src=x");
    expect(await fetch(`${catcher.httpUrl}/healthz`).then((r) => r.json())).toEqual({ status: "ok" });
  });

  it("forgets everything on DELETE", async () => {
    expect((await fetch(`${catcher.httpUrl}/api/messages`, { method: "DELETE" })).status).toBe(204);
    expect(catcher.messages()).toEqual([]);
  });
});
