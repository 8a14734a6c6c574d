import { chainsOfAddress } from "@gateway/chains";
import type { Sql } from "@gateway/db";
import type { Chain } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { payoutWallets } from "@gateway/payouts";
import { walletAddress } from "../payout-wallets/wallet-address.js";

/**
 * Where a payout goes: the explicit `destination_address` (validated for its chain), else the
 * linked payout wallet of the chain. Without `chain`, the chain of the only linked wallet (or the
 * one chain whose address rules accept the address) is taken. No destination at all is 400 `destination_required`.
 */
export async function resolveDestination(
  sql: Sql,
  merchantId: string,
  body: { chain?: Chain | null | undefined; destination_address?: string | null | undefined },
): Promise<{ chain: Chain; destination: string }> {
  const explicit = body.destination_address;
  let chain = body.chain ?? undefined;
  if (explicit !== undefined && explicit !== null && explicit !== "") {
    chain ??= chainOfAddress(explicit);
    return { chain, destination: addressParam(chain, explicit) };
  }
  const wallets = await payoutWallets(sql, merchantId);
  if (chain === undefined) {
    if (wallets.length > 1) {
      throw new GatewayError("parameter_missing", {
        param: "chain",
        message: "Name the chain: payout wallets are linked on several.",
      });
    }
    chain = wallets[0]?.chain;
  }
  const wallet = wallets.find((w) => w.chain === chain);
  if (!chain || !wallet) {
    throw new GatewayError("destination_required", {
      param: "destination_address",
      message: "Link a payout wallet for this chain or give destination_address.",
    });
  }
  return { chain, destination: wallet.address };
}

/** The chain an address without `chain` belongs to, by the registry's address rules. */
function chainOfAddress(raw: unknown): Chain {
  const matches = typeof raw === "string" ? chainsOfAddress(raw) : [];
  const [only] = matches;
  if (only && matches.length === 1) return only.chain;
  if (matches.length > 1) {
    throw new GatewayError("parameter_missing", {
      param: "chain",
      message: `Name the chain: the address is valid on ${matches.map((m) => m.chain).join(" and ")}.`,
    });
  }
  throw new GatewayError("address_invalid", {
    param: "destination_address",
    message: "Not an address of any supported chain; name the chain to see what it should look like.",
  });
}

function addressParam(chain: Chain, raw: string): string {
  try {
    return walletAddress(chain, raw);
  } catch (err) {
    if (err instanceof GatewayError) {
      throw new GatewayError(err.code, { param: "destination_address", message: err.message, cause: err });
    }
    throw err;
  }
}
