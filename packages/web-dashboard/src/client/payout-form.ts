// The payout form, in two steps: what to pay and where → a code mailed for that destination →
// the payout.
import { type Chain, type Mode, PAYOUT_COINS, type Payout, type PayoutCoin } from "@gateway/contracts";
import { ApiError, api } from "./api.js";
import { codeInput, FieldError, field, flash, form, h, input, text } from "./dom.js";
import { CHAIN_CHOICES, chainName, isPlainDecimal } from "./labels.js";
import type { PayoutCodeSent, PayoutContext, PendingPayout } from "./types.js";

/** Clearer words for the payout errors a merchant can fix; the server's message otherwise. */
function payoutError(err: unknown, pending: PendingPayout, context: PayoutContext): unknown {
  if (!(err instanceof ApiError)) return err;
  if (err.code === "insufficient_balance") {
    const chain = context.balances.find((b) => b.chain === pending.chain);
    const coin = chain?.coins.find((c) => c.coin === pending.coin);
    err.message = `Insufficient balance: ${pending.amount} ${pending.coin} is more than the ${
      coin?.available ?? "0.00"
    } ${pending.coin} available on ${chainName(pending.chain)}.`;
  } else if (err.code === "code_invalid") {
    err.message =
      "That code is wrong, has expired or was used. Check the newest mail, or ask for a new code (5 wrong tries void it).";
  }
  return err;
}

/** The chain and where to pay on it: an address, or empty for the chain's linked payout wallet. */
function destinationPicker(currentContext: () => PayoutContext) {
  const chainSelect = h(
    "select",
    { name: "chain" },
    CHAIN_CHOICES.map((c) => h("option", { value: c.id }, c.name)),
  );
  // The options carry the contracts' chains only.
  const selectedChain = () => chainSelect.value as Chain;
  const walletHint = h("p", { class: "hint", id: "payout-destination-wallet" });
  const syncHint = () => {
    const wallet = currentContext().wallets.find((w) => w.chain === selectedChain());
    walletHint.textContent = wallet
      ? `Leave empty to pay your ${chainName(wallet.chain)} payout wallet ${wallet.address}.`
      : `No ${chainName(selectedChain())} payout wallet is linked: enter an address.`;
  };
  chainSelect.addEventListener("change", syncHint);
  const destination = input({ name: "destination_address", autocomplete: "off", spellcheck: "false" });
  return { chainSelect, destination, walletHint, syncHint };
}

/** Step 1's fields: chain, coin, amount and destination. */
function detailsFields({ chainSelect, destination, walletHint }: ReturnType<typeof destinationPicker>) {
  return [
    field("Chain", chainSelect),
    field(
      "Coin",
      h(
        "select",
        { name: "coin_symbol" },
        PAYOUT_COINS.map((c) => h("option", { value: c }, c)),
      ),
    ),
    field(
      "Amount",
      input({ name: "amount", inputmode: "decimal", autocomplete: "off" }),
      "Leaves your balance; a manual payout is charged its chain's network fee out of it.",
    ),
    h(
      "div",
      { class: "field" },
      h("label", { for: "payout-destination" }, "Destination address"),
      destination,
      walletHint,
    ),
  ];
}

interface ConfirmStep {
  mode: Mode;
  currentContext: () => PayoutContext;
  /** Back to step 1, its details as typed. */
  change: () => void;
  /** After the payout is requested: step 1 again, empty. */
  paid: () => Promise<void>;
}

/** Step 2: says where the code went and what it confirms, and takes the code. */
function confirmStep(step: ConfirmStep, pending: PendingPayout, sentTo: string): HTMLElement[] {
  const { mode, currentContext } = step;
  const fee = currentContext().balances.find((b) => b.chain === pending.chain)?.manual_payout_network_fee;
  const change = h("button", { type: "button" }, "Change details");
  change.addEventListener("click", step.change);
  return [
    h(
      "p",
      {},
      `We sent a code to ${sentTo}. It confirms a ${mode === "test" ? "test-mode " : ""}payout of `,
      h("strong", {}, `${pending.amount} ${pending.coin}`),
      ` on ${chainName(pending.chain)} to `,
      h("code", {}, pending.destination),
      fee ? `, of which ${fee} ${pending.coin} is the network fee.` : ".",
    ),
    form(
      { "aria-label": "Confirm the payout" },
      [field("Code", codeInput("otp"), "Valid 10 minutes, for this destination only.")],
      "Pay out",
      async (confirm) => {
        let payout: Payout;
        try {
          payout = await api<Payout>("POST", "/payouts", {
            chain: pending.chain,
            coin_symbol: pending.coin,
            // The API takes a JSON number here (docs/payouts.md) and reads it back as the
            // decimal it was typed as; nothing is computed with it on this side.
            amount: Number(pending.amount),
            destination_address: pending.destination,
            otp: text(confirm, "otp"),
            mode,
          });
        } catch (err) {
          throw payoutError(err, pending, currentContext());
        }
        flash(`Payout of ${payout.amount} ${payout.coin} requested: ${payout.status}.`, "success");
        await step.paid();
      },
    ),
    h("div", { class: "actions" }, change),
  ];
}

export function payoutForm(
  mode: Mode,
  currentContext: () => PayoutContext,
  done: () => Promise<void>,
): HTMLElement {
  const wrap = h("div", { class: "payout-form" });
  const step2 = h("div", { hidden: true });
  const picker = destinationPicker(currentContext);
  const steps: ConfirmStep = {
    mode,
    currentContext,
    change: () => {
      step2.hidden = true;
      step1.hidden = false;
      step1.querySelector("select")?.focus();
    },
    paid: async () => {
      step2.hidden = true;
      step2.replaceChildren();
      step1.reset();
      step1.hidden = false;
      picker.syncHint();
      await done();
    },
  };
  const step1 = form(
    { "aria-label": "Payout details" },
    detailsFields(picker),
    "E-mail me a code",
    async (data) => {
      const amount = text(data, "amount");
      if (!isPlainDecimal(amount))
        throw new FieldError("Enter the amount as a number, such as 25.50.", "amount");
      const address = text(data, "destination_address");
      const sent = await api<PayoutCodeSent>("POST", "/payouts/request-otp", {
        chain: String(data.get("chain")),
        ...(address ? { destination_address: address } : {}),
        mode,
      });
      step1.hidden = true;
      // The select offers the contracts' payout coins only.
      const coin = String(data.get("coin_symbol")) as PayoutCoin;
      const pending = { chain: sent.chain, coin, amount, destination: sent.destination_address };
      step2.replaceChildren(...confirmStep(steps, pending, sent.sent_to));
      step2.hidden = false;
      step2.querySelector<HTMLInputElement>('input[name="otp"]')?.focus();
    },
  );
  picker.destination.id = "payout-destination";
  picker.destination.setAttribute("aria-describedby", picker.walletHint.id);
  picker.syncHint();
  wrap.append(step1, step2);
  return wrap;
}
