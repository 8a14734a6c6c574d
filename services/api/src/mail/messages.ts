// The texts of the mails the dashboard flows send. Plain text only: nothing to render, nothing
// to track, and codes read the same in every client.
import type { Chain, Mode } from "@gateway/domain";
import type { MailMessage } from "./mailer.js";

const CODE_VALIDITY = "10 minutes";

/**
 * A mail carrying a one-time code: the code in the subject (`Your Gateway <kind>: <code>`) and on
 * the first line (`Your <called> is <code>.`), then what it confirms.
 */
function codeMail(
  to: string,
  code: string,
  name: { kind: string; called: string },
  body: string[],
): MailMessage {
  return {
    to,
    subject: `Your Gateway ${name.kind}: ${code}`,
    text: [`Your ${name.called} is ${code}.`, "", ...body].join("\n"),
  };
}

export function verificationCodeMail(to: string, code: string): MailMessage {
  return codeMail(to, code, { kind: "verification code", called: "verification code" }, [
    `Enter it on the sign-up page within ${CODE_VALIDITY} to verify this e-mail address.`,
    "If you did not sign up for Gateway, ignore this message; no account is usable without the code.",
  ]);
}

export function alreadyRegisteredMail(to: string): MailMessage {
  return {
    to,
    subject: "Someone tried to sign up with your e-mail address",
    text: [
      "Someone (perhaps you) tried to create a Gateway account with this e-mail address,",
      "but it already has an account. If it was you, log in with your password instead.",
      "If it was not you, you can ignore this message: nothing was changed.",
    ].join("\n"),
  };
}

export function payoutWalletCodeMail(to: string, code: string, chain: string, address: string): MailMessage {
  return codeMail(to, code, { kind: "payout wallet code", called: "code" }, [
    `It confirms setting your ${chain} payout wallet to:`,
    address,
    "",
    `It is valid for ${CODE_VALIDITY} and for this address only.`,
    "If you did not ask for it, do not share it, and change your password.",
  ]);
}

export function payoutCodeMail(
  to: string,
  code: string,
  { chain, destination, mode }: { chain: Chain; destination: string; mode: Mode },
): MailMessage {
  return codeMail(to, code, { kind: "payout code", called: "payout code" }, [
    `It confirms a ${mode === "test" ? "test-mode " : ""}payout on ${chain} to:`,
    destination,
    "",
    `It is valid for ${CODE_VALIDITY}, for this address only, and once.`,
    "If you did not ask for it, do not share it, and change your password.",
  ]);
}

export function payoutWalletChangedMail(
  to: string,
  chain: string,
  address: string,
  /** When live payouts may start going there (the signer's allow-list delay); undefined: now. */
  effectiveAt?: Date,
): MailMessage {
  const pending = effectiveAt !== undefined && effectiveAt.getTime() > Date.now();
  return {
    to,
    subject: `Your ${chain} payout wallet was changed`,
    text: [
      `Your ${chain} payout wallet is now:`,
      address,
      "",
      pending
        ? `Live payouts on this chain go to this address from ${effectiveAt.toISOString()}.`
        : "Payouts on this chain go to this address from now on.",
      ...cancelHint(chain, address),
      "If you did not make this change, cancel it, change your password and set the wallet again at once.",
    ].join("\n"),
  };
}

function cancelHint(chain: string, address: string): string[] {
  return [
    "To cancel: the Payout wallets page of the dashboard, or",
    `DELETE /payout-destinations/${chain}/${address}?mode=live`,
  ];
}

/** A new address on the payout allow-list (asked for with a payout code), in effect after a delay. */
export function payoutDestinationRequestedMail(
  to: string,
  chain: string,
  address: string,
  effectiveAt: Date,
): MailMessage {
  return {
    to,
    subject: `New ${chain} payout destination`,
    text: [
      `This ${chain} address was added to your payout destinations:`,
      address,
      "",
      `It can receive live payouts from ${effectiveAt.toISOString()}.`,
      ...cancelHint(chain, address),
      "If you did not ask for this, cancel it and change your password at once.",
    ].join("\n"),
  };
}

/** A 6-digit code inviting someone to a team; it is also their proof of the address. */
export function invitationMail(to: string, code: string, business: string, role: string): MailMessage {
  return codeMail(to, code, { kind: "invitation code", called: "invitation code" }, [
    `You are invited to join ${business} on Gateway as ${role === "admin" ? "an" : "a"} ${role}.`,
    'Accept on the dashboard\'s login page ("Accept an invitation") with this address, the code',
    "and a password of your choice. The code is valid for 3 days and once.",
    "If you did not expect this, ignore this message.",
  ]);
}

/** To every owner when someone's second factor changes. */
export function secondFactorChangedMail(to: string, member: string, change: string): MailMessage {
  return {
    to,
    subject: "A second factor of your Gateway team changed",
    text: [
      `${member}: ${change}.`,
      "",
      "Their other sessions were signed out. If this was not expected, review the team's",
      "audit log and remove the member or change their role.",
    ].join("\n"),
  };
}

/** To every owner when a payout is accepted. */
export function payoutRequestedMail(
  to: string,
  payout: { actor: string; chain: string; amount: string; coin: string; destination: string; mode: string },
): MailMessage {
  return {
    to,
    subject: `A ${payout.mode === "test" ? "test-mode " : ""}payout of ${payout.amount} ${payout.coin} was requested`,
    text: [
      `${payout.actor} requested a payout of ${payout.amount} ${payout.coin} on ${payout.chain} to:`,
      payout.destination,
      "",
      "If this was not expected, review the team's audit log at once.",
    ].join("\n"),
  };
}
