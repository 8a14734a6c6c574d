// Prints the newest mail a running catcher holds, optionally for one recipient:
//   pnpm --filter @gateway/mail-catcher latest [address]
import { loadConfigOrExit, port } from "@gateway/config";
import { z } from "zod";
import type { CaughtMail } from "./mail-catcher.js";

const config = loadConfigOrExit("mail-catcher", z.object({ MAIL_CATCHER_HTTP_PORT: port(8025) }));
const to = process.argv[2];
const url = new URL(`http://127.0.0.1:${config.MAIL_CATCHER_HTTP_PORT}/api/messages/latest`);
if (to) url.searchParams.set("to", to);
const response = await fetch(url).catch((err: Error) => {
  process.stderr.write(`mail catcher not reachable at ${url.origin}: ${err.message}\n`);
  process.exit(1);
});
if (response.status === 404) {
  process.stderr.write(`no mail${to ? ` to ${to}` : ""} yet\n`);
  process.exit(1);
}
const mail = (await response.json()) as CaughtMail;
process.stdout.write(
  `To: ${mail.to.join(", ")}\nFrom: ${mail.from}\nDate: ${mail.receivedAt}\nSubject: ${mail.subject}\n\n${mail.text}\n`,
);
