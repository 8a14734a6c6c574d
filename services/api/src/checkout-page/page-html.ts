// The checkout's HTML, rendered on the server from escaped values only. The script fills in
// the live parts with textContent; no data ever reaches the page as markup.
import type { AssetLinks } from "../front-end/assets.js";
import { escapeHtml, pageHead } from "../front-end/page-head.js";

export interface CheckoutPageData {
  paymentId: string;
  merchantName: string;
  description: string | null;
  amount: string;
  currency: string;
  isTest: boolean;
  expiresAt: string;
}

/**
 * A value the customer copies into a wallet: its label, the value (filled in by the script) and
 * a copy button named after it for screen readers. Markup is fixed text only.
 */
function copyField(field: {
  labelId: string;
  label: string;
  outputClass: string;
  part: string;
  copy: string;
}) {
  return `      <div class="field">
        <span class="field-label" id="${field.labelId}">${field.label}</span>
        <div class="field-row">
          <output class="${field.outputClass}" aria-labelledby="${field.labelId}" data-${field.part}></output>
          <button type="button" class="button small" data-copy="${field.copy}"><span data-copy-label>Copy</span><span class="visually-hidden"> ${field.copy}</span></button>
        </div>
      </div>`;
}

const COPY_AMOUNT = copyField({
  labelId: "send-amount-label",
  label: "Amount",
  outputClass: "mono",
  part: "wallet-amount",
  copy: "amount",
});

const COPY_ADDRESS = copyField({
  labelId: "address-label",
  label: "Deposit address (<span data-wallet-network></span>)",
  outputClass: "mono address",
  part: "wallet-address",
  copy: "address",
});

const TEST_TOOLS = `<section class="test-tools" data-test-tools aria-labelledby="test-tools-heading" hidden>
      <h3 id="test-tools-heading" class="test-tools-title">Test mode</h3>
      <p class="hint">Settle this test payment without sending funds.</p>
      <button type="button" class="button simulate" data-simulate="paid">Simulate Payment</button>
      <div class="other-outcomes" role="group" aria-label="Other simulated outcomes">
        <button type="button" class="button small" data-simulate="underpaid">Underpaid</button>
        <button type="button" class="button small" data-simulate="overpaid">Overpaid</button>
        <button type="button" class="button small" data-simulate="expired">Expired</button>
      </div>
    </section>
`;

const FOOTER = `<footer class="footer"><p>Payments processed by Gateway</p></footer>`;

export function checkoutPage(data: CheckoutPageData, assets: AssetLinks): string {
  const merchant = escapeHtml(data.merchantName || "Merchant");
  const description = data.description
    ? `<p class="description" data-description>${escapeHtml(data.description)}</p>`
    : "";
  const banner = data.isTest
    ? `<p class="test-banner" role="note"><strong>Test mode</strong> — no real funds move on this page.</p>`
    : "";
  // Live pages do not even carry the simulation controls.
  const testTools = data.isTest ? TEST_TOOLS : "";
  return `${pageHead(`Pay ${data.merchantName || "merchant"}`, assets, true)}
<body>
${banner}
<main class="checkout" data-payment-id="${escapeHtml(data.paymentId)}">
  <section class="card summary" aria-labelledby="merchant-name">
    <p class="eyebrow">Payment to</p>
    <h1 id="merchant-name">${merchant}</h1>
    ${description}
    <p class="amount" aria-label="Amount due"><span data-amount>${escapeHtml(data.amount)}</span> <span class="currency" data-currency>${escapeHtml(data.currency)}</span></p>
    <p class="countdown" data-countdown-row>Expires in <time data-countdown datetime="${escapeHtml(data.expiresAt)}">--:--</time></p>
  </section>

  <section class="card pay" aria-labelledby="pay-heading">
    <h2 id="pay-heading" class="visually-hidden">Payment</h2>
    <div class="status" data-status-box data-state="loading">
      <span class="status-dot" aria-hidden="true"></span>
      <p role="status" aria-live="polite" aria-atomic="true" data-status>Loading payment…</p>
    </div>
    <p class="alert" role="alert" data-alert hidden></p>
    <noscript><p class="alert">This page needs JavaScript to show the deposit address.</p></noscript>

    <form class="step" data-step="choose" novalidate hidden>
      <h3 tabindex="-1" data-focus>Choose how to pay</h3>
      <fieldset data-chains>
        <legend>Network</legend>
        <div class="choices" data-chain-list></div>
      </fieldset>
      <fieldset data-coins>
        <legend>Coin</legend>
        <div class="choices" data-coin-list></div>
      </fieldset>
      <p class="choice-amount">You will send <strong data-choice-amount></strong></p>
      <p class="hint" data-choice-rate hidden></p>
      <button type="submit" class="button primary" data-generate>Show deposit address</button>
    </form>

    <div class="step" data-step="wallet" hidden>
      <h3 tabindex="-1" data-focus>Send exactly</h3>
      <div class="quote" data-quote-row hidden>
        <p>Rate locked: <strong data-quote-rate></strong></p>
        <p data-quote-running>Send within <time data-quote-countdown>--:--</time> to pay at this rate.</p>
        <p class="alert" data-quote-ended hidden>This quote has ended. Do not send the old amount: get a new quote first.</p>
        <button type="button" class="button primary" data-refresh-quote hidden>Get a new quote</button>
      </div>
      <div data-wallet-details>
${COPY_AMOUNT}
${COPY_ADDRESS}
      <figure class="qr">
        <img data-qr width="232" height="232" alt="">
        <figcaption data-qr-caption></figcaption>
      </figure>
      <p class="wallet-link" data-wallet-link-row hidden><a class="button" data-wallet-link href="#">Open in wallet app</a></p>
      </div>
      <p class="hint" data-warning></p>
      <button type="button" class="button link" data-change hidden>Pay with another coin</button>
    </div>

    <div class="step result" data-step="result" hidden>
      <h3 tabindex="-1" data-focus data-result-title></h3>
      <p data-result-text></p>
      <ul class="refunds" data-refunds hidden></ul>
      <p data-redirect-row hidden>Returning you to the shop… <a data-redirect-link href="#">Continue now</a></p>
    </div>

${testTools}    <p class="visually-hidden" aria-live="polite" data-announce></p>
  </section>
</main>
${FOOTER}
</body>
</html>
`;
}

/** A page for a link that leads nowhere: the customer gets words, not a JSON error. */
export function errorPage(options: { title: string; message: string }, assets: AssetLinks): string {
  return `${pageHead(options.title, assets, false)}
<body>
<main class="checkout single">
  <section class="card error-card" aria-labelledby="error-title">
    <h1 id="error-title">${escapeHtml(options.title)}</h1>
    <p>${escapeHtml(options.message)}</p>
  </section>
</main>
${FOOTER}
</body>
</html>
`;
}
