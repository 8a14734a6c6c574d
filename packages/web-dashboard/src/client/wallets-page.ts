// Payout wallets: one per chain, set or changed with a code e-mailed for that address.

import { api } from "./api.js";
import { codeInput, field, flash, form, h, input, show, text } from "./dom.js";
import { CHAIN_CHOICES } from "./labels.js";
import { can } from "./permissions.js";
import type { List, PayoutWallet, WalletCodeSent } from "./types.js";

type ChainChoice = (typeof CHAIN_CHOICES)[number];

export async function walletsPage(): Promise<void> {
  const { data } = await api<List<PayoutWallet>>("GET", "/payout-wallets");
  show(
    "Payout wallets",
    h(
      "p",
      {},
      "One wallet per chain receives your payouts. Setting or changing one takes a code we e-mail you.",
    ),
    CHAIN_CHOICES.map((chain) =>
      walletSection(
        chain,
        data.find((w) => w.chain === chain.id),
      ),
    ),
  );
}

function confirmForm(chain: ChainChoice, sent: WalletCodeSent): HTMLFormElement {
  return form(
    { "aria-label": `Confirm ${chain.name} payout wallet` },
    [field("Code", codeInput("otp"))],
    "Save wallet",
    async (confirm) => {
      await api("PUT", `/payout-wallets/${chain.id}`, { address: sent.address, otp: text(confirm, "otp") });
      flash(`${chain.name} payout wallet saved.`, "success");
      await walletsPage();
    },
  );
}

function walletSection(chain: ChainChoice, wallet: PayoutWallet | undefined): HTMLElement {
  const section = h("section", { class: "panel wallet", "aria-labelledby": `wallet-${chain.id}` });
  const current = wallet
    ? h("p", {}, "Current: ", h("code", { class: "address" }, wallet.address))
    : h("p", {}, "No wallet set yet.");
  const step2 = h("div", { hidden: true });
  const step1 = form(
    { "aria-label": `New ${chain.name} payout wallet` },
    [
      field(
        `New ${chain.name} address`,
        input({ name: "address", autocomplete: "off", spellcheck: "false" }),
        chain.hint,
      ),
    ],
    "E-mail me a code",
    async (data) => {
      const address = text(data, "address");
      const sent = await api<WalletCodeSent>("POST", `/payout-wallets/${chain.id}/request-code`, { address });
      step2.replaceChildren(
        h("p", {}, `We sent a code to ${sent.sent_to}. It confirms this address only.`),
        confirmForm(chain, sent),
      );
      step2.hidden = false;
      step2.querySelector("input")?.focus();
    },
  );
  const canChange = can("PUT /payout-wallets/{chain}");
  section.append(
    h("h2", { id: `wallet-${chain.id}` }, chain.name),
    current,
    ...(canChange ? [step1, step2] : []),
  );
  return section;
}
