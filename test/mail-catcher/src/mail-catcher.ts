// An SMTP server that accepts every message and keeps it in memory, with an HTTP page and a JSON
// API to read them back: development and tests can finish a sign-up or a payout without a real
// mail server. It is never meant to face the internet.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type AddressObject, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface CaughtMail {
  id: string;
  from: string;
  /** Envelope recipients, lower-cased. */
  to: string[];
  subject: string;
  text: string;
  html: string | null;
  receivedAt: string;
}

export interface MailCatcherOptions {
  /** 0 picks a free port. */
  smtpPort?: number;
  httpPort?: number;
  host?: string;
  /** Oldest messages are dropped beyond this many. */
  maxMessages?: number;
}

export interface WaitForMailOptions {
  to: string;
  subject?: string | RegExp;
  /** Only messages whose id is greater than this (ids grow by one per message). */
  afterId?: string;
  timeoutMs?: number;
}

export interface MailCatcher {
  smtpPort: number;
  httpPort: number;
  /** What to put in SMTP_URL. */
  smtpUrl: string;
  httpUrl: string;
  /** Newest first, optionally only those sent to `to`. */
  messages(filter?: { to?: string }): CaughtMail[];
  waitForMail(options: WaitForMailOptions): Promise<CaughtMail>;
  clear(): void;
  close(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 1024 * 1024;

export async function createMailCatcher({
  smtpPort = 0,
  httpPort = 0,
  host = "127.0.0.1",
  maxMessages = 500,
}: MailCatcherOptions = {}): Promise<MailCatcher> {
  const stored: CaughtMail[] = [];
  let sequence = 0;
  const waiters = new Set<() => void>();

  const smtp = new SMTPServer({
    logger: false,
    banner: "gateway mail catcher",
    // Plain SMTP only: a self-signed STARTTLS offer would make clients refuse to deliver.
    disabledCommands: ["STARTTLS"],
    authOptional: true,
    allowInsecureAuth: true,
    size: MAX_MESSAGE_BYTES,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? "anonymous" });
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          sequence += 1;
          stored.push({
            id: String(sequence),
            from: addressText(parsed.from) || (session.envelope.mailFrom || { address: "" }).address,
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            html: typeof parsed.html === "string" ? parsed.html : null,
            receivedAt: new Date().toISOString(),
          });
          if (stored.length > maxMessages) stored.splice(0, stored.length - maxMessages);
          for (const wake of waiters) wake();
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once("error", reject);
    smtp.listen(smtpPort, host, () => {
      smtp.off("error", reject);
      resolve();
    });
  });
  const boundSmtpPort = (smtp.server.address() as AddressInfo).port;

  function messages(filter: { to?: string } = {}): CaughtMail[] {
    const to = filter.to?.toLowerCase();
    return stored.filter((m) => to === undefined || m.to.includes(to)).reverse();
  }

  const http = createServer((req, res) => {
    try {
      handleHttp(req, res);
    } catch {
      send(res, 500, "text/plain", "error");
    }
  });
  function handleHttp(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://catcher");
    const to = url.searchParams.get("to") ?? undefined;
    if (req.method === "GET" && url.pathname === "/healthz") return json(res, 200, { status: "ok" });
    if (req.method === "GET" && url.pathname === "/api/messages") {
      return json(res, 200, { data: messages({ to }) });
    }
    if (req.method === "DELETE" && url.pathname === "/api/messages") {
      stored.length = 0;
      return send(res, 204, "text/plain", "");
    }
    if (req.method === "GET" && url.pathname === "/api/messages/latest") {
      const latest = messages({ to })[0];
      return latest ? json(res, 200, latest) : json(res, 404, { error: "no message" });
    }
    const one = /^\/api\/messages\/(\d+)$/.exec(url.pathname);
    if (req.method === "GET" && one) {
      const message = stored.find((m) => m.id === one[1]);
      return message ? json(res, 200, message) : json(res, 404, { error: "no message" });
    }
    if (req.method === "GET" && url.pathname === "/") {
      return send(res, 200, "text/html; charset=utf-8", renderPage(messages({ to }), boundSmtpPort));
    }
    return json(res, 404, { error: "not found" });
  }
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(httpPort, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const boundHttpPort = (http.address() as AddressInfo).port;

  return {
    smtpPort: boundSmtpPort,
    httpPort: boundHttpPort,
    smtpUrl: `smtp://${host}:${boundSmtpPort}`,
    httpUrl: `http://${host}:${boundHttpPort}`,
    messages,
    clear() {
      stored.length = 0;
    },
    waitForMail({ to, subject, afterId = "0", timeoutMs = 10_000 }) {
      const matches = (m: CaughtMail) =>
        Number(m.id) > Number(afterId) &&
        m.to.includes(to.toLowerCase()) &&
        (subject === undefined ||
          (typeof subject === "string" ? m.subject.includes(subject) : subject.test(m.subject)));
      return new Promise<CaughtMail>((resolve, reject) => {
        const check = () => {
          const found = messages().find(matches);
          if (!found) return false;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    async close() {
      await Promise.all([
        new Promise<void>((resolve) => smtp.close(() => resolve())),
        new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        }),
      ]);
    },
  };
}

function addressText(address: AddressObject | AddressObject[] | undefined): string {
  if (!address) return "";
  return (Array.isArray(address) ? address : [address]).map((a) => a.text).join(", ");
}

function json(res: ServerResponse, status: number, body: unknown) {
  send(res, status, "application/json", JSON.stringify(body));
}

function send(res: ServerResponse, status: number, type: string, body: string) {
  res.writeHead(status, {
    "Content-Type": type,
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    // The page renders mail as text only; nothing in a message may run or load.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
  });
  res.end(body);
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

function renderPage(list: CaughtMail[], smtpPort: number): string {
  const items = list
    .map(
      (m) => `<article>
  <h2>${escapeHtml(m.subject || "(no subject)")}</h2>
  <p class="meta">#${m.id} · to ${escapeHtml(m.to.join(", "))} · from ${escapeHtml(m.from)} · <time>${m.receivedAt}</time></p>
  <pre>${escapeHtml(m.text)}</pre>
</article>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="5">
<title>Mail catcher (${list.length})</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem; color: #1a1a1a; }
article { border: 1px solid #ccc; border-radius: 6px; padding: 0.5rem 1rem; margin: 1rem 0; }
h2 { font-size: 1.1rem; margin: 0.25rem 0; }
.meta { color: #555; font-size: 0.9rem; margin: 0; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
</style>
</head>
<body>
<h1>Mail catcher</h1>
<p>SMTP on port ${smtpPort}; newest first; this page refreshes every 5 seconds. JSON: <code>/api/messages?to=…</code>, <code>/api/messages/latest?to=…</code>.</p>
${items || "<p>No mail yet.</p>"}
</body>
</html>`;
}
