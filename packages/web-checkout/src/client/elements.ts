// The parts of the server-rendered page the script fills in, found once by their data attributes.

export const root = document.querySelector<HTMLElement>("main[data-payment-id]")!;
export const paymentId = root.dataset.paymentId ?? "";

function part<T extends HTMLElement = HTMLElement>(name: string): T {
  const node = root.querySelector<T>(`[data-${name}]`);
  if (!node) throw new Error(`The checkout page has no [data-${name}].`);
  return node;
}

function step<T extends HTMLElement = HTMLElement>(name: string): T {
  return part<T>(`step="${name}"`);
}

export const ui = {
  status: part("status"),
  statusBox: part("status-box"),
  alert: part("alert"),
  announce: part("announce"),
  countdownRow: part("countdown-row"),
  countdown: part<HTMLTimeElement>("countdown"),
  expiresClock: part("expires-clock"),
  steps: {
    choose: step<HTMLFormElement>("choose"),
    wallet: step("wallet"),
    result: step("result"),
  },
  chainList: part("chain-list"),
  coinList: part("coin-list"),
  choiceAmount: part("choice-amount"),
  choiceRate: part("choice-rate"),
  quoteRow: part("quote-row"),
  quoteRate: part("quote-rate"),
  quoteRunning: part("quote-running"),
  quoteCountdown: part<HTMLTimeElement>("quote-countdown"),
  quoteEnded: part("quote-ended"),
  refreshQuote: part<HTMLButtonElement>("refresh-quote"),
  walletDetails: part("wallet-details"),
  generate: part<HTMLButtonElement>("generate"),
  walletAmount: part<HTMLOutputElement>("wallet-amount"),
  walletAddress: part<HTMLOutputElement>("wallet-address"),
  walletNetwork: part("wallet-network"),
  qr: part<HTMLImageElement>("qr"),
  qrCaption: part("qr-caption"),
  walletLinkRow: part("wallet-link-row"),
  walletLink: part<HTMLAnchorElement>("wallet-link"),
  oneTap: part("one-tap"),
  oneTapQr: part<HTMLImageElement>("one-tap-qr"),
  oneTapLink: part<HTMLAnchorElement>("one-tap-link"),
  receipt: part<HTMLFormElement>("receipt"),
  receiptEmail: part<HTMLInputElement>("receipt-email"),
  receiptStatus: part("receipt-status"),
  receiptSend: part<HTMLButtonElement>("receipt-send"),
  warning: part("warning"),
  change: part<HTMLButtonElement>("change"),
  resultTitle: part("result-title"),
  resultText: part("result-text"),
  refunds: part("refunds"),
  redirectRow: part("redirect-row"),
  redirectLink: part<HTMLAnchorElement>("redirect-link"),
  /** Only on test payments: live pages do not carry the simulation controls. */
  testTools: root.querySelector<HTMLElement>("[data-test-tools]"),
};

export type Step = keyof typeof ui.steps;
