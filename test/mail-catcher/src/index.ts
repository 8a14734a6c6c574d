export {
  type CaughtMail,
  createMailCatcher,
  type MailCatcher,
  type MailCatcherOptions,
  type WaitForMailOptions,
} from "./mail-catcher.js";
