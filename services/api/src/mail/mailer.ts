import { GatewayError } from "@gateway/errors";
import type { Logger } from "@gateway/logging";
import nodemailer from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative of `text` (receipts); codes are plain text only. */
  html?: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message; rejects if it did not. */
  send(message: MailMessage): Promise<void>;
}

/**
 * Every mail the API sends goes through here to SMTP_URL. Without SMTP_URL nothing is sent and
 * only the fact is logged: the body is never logged, because it carries one-time codes.
 */
export function createMailer({
  smtpUrl,
  from,
  log,
}: {
  smtpUrl: string | undefined;
  from: string;
  log: Logger;
}): Mailer {
  if (!smtpUrl) {
    return {
      async send({ to }) {
        // Neither subject nor body is logged: either may carry a one-time code.
        log.warn({ to }, "mail not sent: SMTP_URL is not set");
      },
    };
  }
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send({ to, subject, text, html }) {
      await transport.sendMail({ from, to, subject, text, ...(html === undefined ? {} : { html }) });
      log.info({ to }, "mail sent");
    },
  };
}

/**
 * Sends a mail the caller is waiting for (a code): one that cannot be sent answers 503, the same
 * on every path, so that the answer says nothing about the address.
 */
export async function sendOrUnavailable(mailer: Mailer, message: MailMessage): Promise<void> {
  try {
    await mailer.send(message);
  } catch (cause) {
    throw new GatewayError("service_unavailable", {
      cause,
      message: "The e-mail could not be sent; retry shortly.",
    });
  }
}
