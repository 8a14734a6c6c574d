// The "choose how to pay" step: one radio group of networks, one of that network's coins, and
// what the chosen pair costs.

import type { Chain, Coin } from "@gateway/contracts";
import { ui } from "./elements.js";
import { money, t } from "./i18n.js";
import { chainName } from "./labels.js";
import { state } from "./state.js";
import type { CheckoutView } from "./types.js";

function radio(name: string, value: string, text: string, checked: boolean): HTMLLabelElement {
  const label = document.createElement("label");
  label.className = "choice";
  const input = document.createElement("input");
  input.type = "radio";
  input.name = name;
  input.value = value;
  input.checked = checked;
  label.append(input, document.createTextNode(text));
  return label;
}

export function buildChoices(view: CheckoutView): void {
  const chains = [...new Set(view.options.map((o) => o.chain))];
  const preferred = view.wallet ?? view.options[0];
  state.chain = preferred?.chain ?? null;
  state.coin = preferred?.coin ?? null;
  ui.chainList.replaceChildren(
    ...chains.map((chain) => radio("chain", chain, chainName(chain), chain === state.chain)),
  );
  fillCoins();
  // The radios carry only values the server offered.
  ui.chainList.addEventListener("change", (event) => {
    state.chain = (event.target as HTMLInputElement).value as Chain;
    fillCoins();
  });
  ui.coinList.addEventListener("change", (event) => {
    state.coin = (event.target as HTMLInputElement).value as Coin;
    fillChoiceAmount();
  });
}

function fillCoins(): void {
  const coins = (state.view?.options ?? []).filter((o) => o.chain === state.chain).map((o) => o.coin);
  if (!state.coin || !coins.includes(state.coin)) state.coin = coins[0] ?? null;
  ui.coinList.replaceChildren(...coins.map((coin) => radio("coin", coin, coin, coin === state.coin)));
  fillChoiceAmount();
}

function fillChoiceAmount(): void {
  const option = state.view?.options.find((o) => o.chain === state.chain && o.coin === state.coin);
  const network = option ? chainName(option.chain) : "";
  if (!option) ui.choiceAmount.textContent = "—";
  else if (option.amount === null)
    ui.choiceAmount.textContent = t("choiceOn", { coin: option.coin, network });
  // A quoted coin's amount is an estimate until the quote locks the rate.
  else
    ui.choiceAmount.textContent = t(option.rate ? "choiceAbout" : "choiceAmount", {
      amount: money(option.amount, option.coin),
      network,
    });
  ui.choiceRate.hidden = !option?.rate && option?.amount !== null;
  ui.choiceRate.textContent = !option
    ? ""
    : option.rate
      ? t("rateNow", { coin: option.coin, rate: money(option.rate, "").trim() })
      : option.amount === null
        ? t("noPrice", { coin: option.coin })
        : "";
}
