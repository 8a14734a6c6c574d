// The checkout's HTML, rendered on the server from escaped values only, in the customer's
// language (i18n/). The script fills in the live parts with textContent; no data ever reaches
// the page as markup.
import { type AssetLinks, escapeHtml, pageHead } from "@gateway/web-kit";
import { fill, formatDecimal, type Language, MESSAGES, type MessageKey } from "./i18n/index.js";

export interface CheckoutPageData {
  paymentId: string;
  merchantName: string;
  description: string | null;
  amount: string;
  currency: string;
  isTest: boolean;
  expiresAt: string;
}

/** One language's words, escaped; `markup` values go in as they are (fixed elements of ours). */
function wordsOf(language: Language) {
  const table = MESSAGES[language];
  return (key: MessageKey, markup: Record<string, string> = {}) => fill(escapeHtml(table[key]), markup);
}
type Words = ReturnType<typeof wordsOf>;

/**
 * A value the customer copies into a wallet: its label, the value (filled in by the script) and
 * a copy button named after it for screen readers. Markup is fixed text only.
 */
function copyField(
  w: Words,
  field: { labelId: string; label: string; outputClass: string; part: string; copy: "amount" | "address" },
) {
  const what = w(field.copy === "amount" ? "copyWhatAmount" : "copyWhatAddress");
  return `      <div class="field">
        <span class="field-label" id="${field.labelId}">${field.label}</span>
        <div class="field-row">
          <output class="${field.outputClass}" aria-labelledby="${field.labelId}" data-${field.part}></output>
          <button type="button" class="button small" data-copy="${field.copy}"><span data-copy-label>${w("copy")}</span><span class="visually-hidden"> ${what}</span></button>
        </div>
      </div>`;
}

function testTools(w: Words) {
  return `<section class="test-tools" data-test-tools aria-labelledby="test-tools-heading" hidden>
      <h3 id="test-tools-heading" class="test-tools-title">${w("testToolsHeading")}</h3>
      <p class="hint">${w("testToolsHint")}</p>
      <button type="button" class="button simulate" data-simulate="paid">${w("simulatePayment")}</button>
      <div class="other-outcomes" role="group" aria-label="${w("otherOutcomes")}">
        <button type="button" class="button small" data-simulate="underpaid">${w("outcomeUnderpaid")}</button>
        <button type="button" class="button small" data-simulate="overpaid">${w("outcomeOverpaid")}</button>
        <button type="button" class="button small" data-simulate="expired">${w("outcomeExpired")}</button>
      </div>
    </section>
`;
}

const footer = (w: Words) => `<footer class="footer"><p>${w("footer")}</p></footer>`;

/** Solana Pay's one-tap request (the script shows it on Solana): its QR on a desktop, a button on a phone. */
function oneTap(w: Words) {
  return `      <div class="one-tap" data-one-tap hidden>
        <h4>${w("oneTapHeading")}</h4>
        <figure class="qr">
          <img data-one-tap-qr width="232" height="232" alt="">
          <figcaption>${w("oneTapHint")}</figcaption>
        </figure>
        <p class="wallet-link"><a class="button primary" data-one-tap-link href="#">${w("openInWallet")}</a></p>
        <h4 class="fallback-heading">${w("orSendYourself")}</h4>
      </div>`;
}

function receiptForm(w: Words) {
  return `    <form class="receipt" data-receipt novalidate hidden>
      <label for="receipt-email">${w("receiptLabel")}</label>
      <div class="field-row">
        <input id="receipt-email" type="email" autocomplete="email" maxlength="254" placeholder="${w("receiptPlaceholder")}" data-receipt-email>
        <button type="submit" class="button small" data-receipt-send>${w("receiptSend")}</button>
      </div>
      <p class="hint" role="status" data-receipt-status></p>
    </form>
`;
}

/** The card that says whom the customer pays, how much, and until when. */
function summary(data: CheckoutPageData, w: Words, language: Language) {
  const table = MESSAGES[language];
  const merchant = escapeHtml(data.merchantName || table.merchantFallback);
  const description = data.description
    ? `<p class="description" data-description>${escapeHtml(data.description)}</p>`
    : "";
  const countdown = `<time data-countdown datetime="${escapeHtml(data.expiresAt)}">--:--</time>`;
  const amount = `<span data-amount data-value="${escapeHtml(data.amount)}">${escapeHtml(formatDecimal(language, data.amount))}</span>`;
  return `  <section class="card summary" aria-labelledby="merchant-name">
    <p class="eyebrow">${w("paymentTo")}</p>
    <h1 id="merchant-name">${merchant}</h1>
    ${description}
    <p class="amount" aria-label="${w("amountDue")}">${amount} <span class="currency" data-currency>${escapeHtml(data.currency)}</span></p>
    <p class="countdown" data-countdown-row>${w("expiresIn", { countdown })} <span data-expires-clock></span></p>
  </section>`;
}

function chooseStep(w: Words) {
  return `    <form class="step" data-step="choose" novalidate hidden>
      <h3 tabindex="-1" data-focus>${w("chooseHeading")}</h3>
      <fieldset data-chains>
        <legend>${w("network")}</legend>
        <div class="choices" data-chain-list></div>
      </fieldset>
      <fieldset data-coins>
        <legend>${w("coin")}</legend>
        <div class="choices" data-coin-list></div>
      </fieldset>
      <p class="choice-amount">${w("youWillSend", { amount: "<strong data-choice-amount></strong>" })}</p>
      <p class="hint" data-choice-rate hidden></p>
      <button type="submit" class="button primary" data-generate>${w("showAddress")}</button>
    </form>`;
}

function walletStep(w: Words) {
  return `    <div class="step" data-step="wallet" hidden>
      <h3 tabindex="-1" data-focus>${w("sendExactly")}</h3>
      <div class="quote" data-quote-row hidden>
        <p>${w("rateLocked", { rate: "<strong data-quote-rate></strong>" })}</p>
        <p data-quote-running>${w("sendWithin", { countdown: "<time data-quote-countdown>--:--</time>" })}</p>
        <p class="alert" data-quote-ended hidden>${w("quoteEnded")}</p>
        <button type="button" class="button primary" data-refresh-quote hidden>${w("getNewQuote")}</button>
      </div>
      <div data-wallet-details>
${oneTap(w)}
${copyField(w, { labelId: "send-amount-label", label: w("amount"), outputClass: "mono", part: "wallet-amount", copy: "amount" })}
${copyField(w, { labelId: "address-label", label: w("depositAddress", { network: "<span data-wallet-network></span>" }), outputClass: "mono address", part: "wallet-address", copy: "address" })}
      <figure class="qr">
        <img data-qr width="232" height="232" alt="">
        <figcaption data-qr-caption></figcaption>
      </figure>
      <p class="wallet-link" data-wallet-link-row hidden><a class="button" data-wallet-link href="#">${w("openInWallet")}</a></p>
      </div>
      <p class="hint" data-warning></p>
      <button type="button" class="button link" data-change hidden>${w("payWithAnother")}</button>
    </div>`;
}

function resultStep(w: Words) {
  return `    <div class="step result" data-step="result" hidden>
      <h3 tabindex="-1" data-focus data-result-title></h3>
      <p data-result-text></p>
      <ul class="refunds" data-refunds hidden></ul>
      <p data-redirect-row hidden>${w("returning")} <a data-redirect-link href="#">${w("continueNow")}</a></p>
    </div>`;
}

export function checkoutPage(data: CheckoutPageData, assets: AssetLinks, language: Language = "en"): string {
  const w = wordsOf(language);
  const table = MESSAGES[language];
  const banner = data.isTest
    ? `<p class="test-banner" role="note"><strong>${w("testModeStrong")}</strong> — ${w("testModeBanner")}</p>`
    : "";
  const title = fill(table.pageTitle, { merchant: data.merchantName || table.merchantFallback });
  return `${pageHead(title, assets, true, language)}
<body>
${banner}
<main class="checkout" data-payment-id="${escapeHtml(data.paymentId)}" data-messages="${escapeHtml(JSON.stringify(table))}">
${summary(data, w, language)}

  <section class="card pay" aria-labelledby="pay-heading">
    <h2 id="pay-heading" class="visually-hidden">${w("paymentHeading")}</h2>
    <div class="status" data-status-box data-state="loading">
      <span class="status-dot" aria-hidden="true"></span>
      <p role="status" aria-live="polite" aria-atomic="true" data-status>${w("loading")}</p>
    </div>
    <p class="alert" role="alert" data-alert hidden></p>
    <noscript><p class="alert">${w("noScript")}</p></noscript>

${chooseStep(w)}

${walletStep(w)}

${resultStep(w)}

${receiptForm(w)}${data.isTest ? testTools(w) : ""}    <p class="visually-hidden" aria-live="polite" data-announce></p>
  </section>
</main>
${footer(w)}
</body>
</html>
`;
}

/** A page for a link that leads nowhere: the customer gets words, not a JSON error. */
export function errorPage(
  options: { title: string; message: string },
  assets: AssetLinks,
  language: Language = "en",
): string {
  const w = wordsOf(language);
  return `${pageHead(options.title, assets, false, language)}
<body>
<main class="checkout single">
  <section class="card error-card" aria-labelledby="error-title">
    <h1 id="error-title">${escapeHtml(options.title)}</h1>
    <p>${escapeHtml(options.message)}</p>
  </section>
</main>
${footer(w)}
</body>
</html>
`;
}
