// The local runner's mail catcher: point the API's SMTP_URL at it and read mail in a browser.
import { loadConfigOrExit, logLevel, port } from "@gateway/config";
import { createLogger } from "@gateway/logging";
import { onShutdown } from "@gateway/service-runtime";
import { z } from "zod";
import { createMailCatcher } from "./mail-catcher.js";

const config = loadConfigOrExit(
  "mail-catcher",
  z.object({
    MAIL_CATCHER_SMTP_PORT: port(1025),
    MAIL_CATCHER_HTTP_PORT: port(8025),
    MAIL_CATCHER_HOST: z.string().default("127.0.0.1"),
    LOG_LEVEL: logLevel,
  }),
);
const log = createLogger({ name: "mail-catcher", level: config.LOG_LEVEL });
const catcher = await createMailCatcher({
  smtpPort: config.MAIL_CATCHER_SMTP_PORT,
  httpPort: config.MAIL_CATCHER_HTTP_PORT,
  host: config.MAIL_CATCHER_HOST,
});
log.info({ smtpUrl: catcher.smtpUrl, page: catcher.httpUrl }, "mail catcher listening");
onShutdown(log, [() => catcher.close()]);
