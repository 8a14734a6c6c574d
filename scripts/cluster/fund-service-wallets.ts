import { readFileSync } from "node:fs";
import path from "node:path";
import type { Chain } from "@gateway/contracts";
import { createSignerClient } from "@gateway/signer-client";

/** A local network's funding of the service wallets (its package's `fund-service-wallets.ts`). */
export interface LocalFunding {
  url: string;
  fund(
    faucet: (owner: string, coin: string, amount: string) => Promise<void>,
    wallets: { gas: string; vault: string },
  ): Promise<void>;
}

/**
 * A fresh local cluster's service wallets are empty, and the signer never signs a bare account
 * creation, so the runner has each local network fund them through its faucet, in both modes.
 * On mainnet an operator funds the gas wallet and creates the vault accounts once (docs/operations.md).
 */
export async function fundLocalServiceWallets(options: {
  certsDir: string;
  signerUrl: string;
  networks: { readonly [C in Chain]: LocalFunding };
  say: (line: string) => void;
}): Promise<void> {
  const tls = (file: string) => readFileSync(path.join(options.certsDir, file));
  const signer = createSignerClient({
    baseUrl: options.signerUrl,
    tls: { ca: tls("ca.pem"), cert: tls("settlement.pem"), key: tls("settlement-key.pem") },
  });
  try {
    const book = await signer.getServiceAddresses();
    for (const [chain, network] of Object.entries(options.networks) as [Chain, LocalFunding][]) {
      const faucet = async (owner: string, coin: string, amount: string) => {
        const res = await fetch(`${network.url}/faucet`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ owner, coin, amount }),
        });
        if (!res.ok) throw new Error(`faucet ${coin} for ${owner}: HTTP ${res.status} ${await res.text()}`);
      };
      for (const mode of ["live", "test"] as const) await network.fund(faucet, book[chain][mode]);
    }
    options.say("local service wallets funded (gas and vault accounts on every local network)");
  } finally {
    signer.close();
  }
}
