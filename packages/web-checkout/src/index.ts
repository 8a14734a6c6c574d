// The hosted checkout page, for the API that serves it: the HTML in the customer's language, and
// where the browser files are that the API bundles (client/, assets/).
import type { PageFiles } from "@gateway/web-kit";

export { type Language, MESSAGES, pickLanguage } from "./i18n/index.js";
export { type CheckoutPageData, checkoutPage, errorPage } from "./page-html.js";

export const CHECKOUT_FILES: PageFiles = {
  script: new URL("./client/main.ts", import.meta.url),
  style: new URL("./assets/checkout.css", import.meta.url),
  favicon: new URL("./assets/favicon.svg", import.meta.url),
};
