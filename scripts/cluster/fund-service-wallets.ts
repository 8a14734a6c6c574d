import { readFileSync } from "node:fs";
import path from "node:path";
import { createSignerClient } from "@gateway/signer-client";

/** settlement's chain-work concurrency (services/settlement/src/command-consumer.ts). */
const SUI_GAS_COINS = 64;

/**
 * A fresh local cluster's service wallets are empty: the gas wallet needs SOL to pay fees, and
 * the vault needs its USDC/USDT token accounts before sweeps can land in them. The signer never
 * signs a bare account creation, so the runner sets them up through the local network's faucet.
 * On mainnet an operator funds the gas wallet and creates the vault accounts once (docs/operations.md).
 */
export async function fundLocalServiceWallets(options: {
  certsDir: string;
  signerUrl: string;
  solanaRpcUrl: string;
  suiUrl: string;
  say: (line: string) => void;
}): Promise<void> {
  const tls = (file: string) => readFileSync(path.join(options.certsDir, file));
  const signer = createSignerClient({
    baseUrl: options.signerUrl,
    tls: { ca: tls("ca.pem"), cert: tls("settlement.pem"), key: tls("settlement-key.pem") },
  });
  try {
    const book = await signer.getServiceAddresses();
    const faucet = async (url: string, owner: string, coin: string, amount: string) => {
      const res = await fetch(`${url}/faucet`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ owner, coin, amount }),
      });
      if (!res.ok) throw new Error(`faucet ${coin} for ${owner}: HTTP ${res.status} ${await res.text()}`);
    };
    for (const mode of ["live", "test"] as const) {
      const solana = book.solana[mode];
      await faucet(options.solanaRpcUrl, solana.gas, "SOL", "100");
      // A dust mint creates each vault token account (and makes the vault rent-exempt owner).
      await faucet(options.solanaRpcUrl, solana.vault, "USDC", "0.000001");
      await faucet(options.solanaRpcUrl, solana.vault, "USDT", "0.000001");
      // Each Sui transaction in flight holds one of the gas wallet's coins, so their number
      // bounds the sweeps and refunds in flight: as many as settlement runs at once. Asked for
      // together: the network grants them one at a time, without a round trip between.
      await Promise.all(
        Array.from({ length: SUI_GAS_COINS }, () => faucet(options.suiUrl, book.sui[mode].gas, "SUI", "25")),
      );
    }
    options.say("local service wallets funded (gas SOL and SUI, vault token accounts)");
  } finally {
    signer.close();
  }
}
