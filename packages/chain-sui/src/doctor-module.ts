// Sui in `gateway doctor` (scripts/doctor): the watcher's variables, the chain preflight of the
// endpoint, and the gas wallet that sponsors every transaction.
import { type ChainDoctorModule, type Finding, fault, pass, plain, whole, within } from "@gateway/chain-kit";
import { type WatcherSuiConfig, watcherSuiConfigSchema } from "@gateway/config";
import type { ServiceAddressBook } from "@gateway/signer-client";
import { suiUnaryClient } from "./client.js";
import { suiProbeFromConfig } from "./preflight.js";

/** Below this the gas wallet runs dry within days of ordinary traffic (docs/going-live.md). */
const GAS_MINIMUM_MIST = 1_000_000_000n;

export const suiDoctor: ChainDoctorModule<WatcherSuiConfig> = {
  watcherConfigSchema: watcherSuiConfigSchema,
  probe: (config) =>
    config.SUI_GRPC_URL ? suiProbeFromConfig({ ...config, SUI_GRPC_URL: config.SUI_GRPC_URL }) : undefined,
  wallets: async (book, settlement) =>
    settlement.SUI_GRPC_URL
      ? checkSuiWallets(book, { ...settlement, SUI_GRPC_URL: settlement.SUI_GRPC_URL })
      : [],
};

async function checkSuiWallets(
  book: ServiceAddressBook,
  config: { SUI_GRPC_URL: string; SUI_NETWORK: "mainnet" | "localnet" },
): Promise<Finding[]> {
  const client = suiUnaryClient(config.SUI_NETWORK, config.SUI_GRPC_URL);
  const { gas, vault } = book.sui.live;
  try {
    const { balance } = await within(
      client.getBalance({ owner: gas, coinType: "0x2::sui::SUI" }),
      10_000,
      "Sui",
    );
    const mist = BigInt(balance.balance);
    const text = `Sui gas wallet ${gas} holds ${whole(mist, 9)} SUI (vault ${vault})`;
    return [
      mist >= GAS_MINIMUM_MIST
        ? pass("wallets", text)
        : fault("wallets", `${text}: fund it with at least ${whole(GAS_MINIMUM_MIST, 9)} SUI`),
    ];
  } catch (err) {
    return [fault("wallets", `could not read the Sui wallets: ${plain(err)}`, "SUI_GRPC_URL")];
  }
}
