import { chainModule } from "@gateway/chains";
import { CHAINS } from "@gateway/contracts";
import { type Chain, parseChain } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { z } from "zod";
import { parsedBy } from "../../http/fields.js";

/** The `{chain}` path parameter, case-insensitive; `chain_unsupported` otherwise. */
export const chainParam = parsedBy(z.string(), parseChain, z.enum(CHAINS));

/**
 * A payout address in its canonical form, or 400 `address_invalid`, by the chain registry's
 * address rules (Solana: canonical base58 of 32 bytes, off-curve allowed for multisig vaults;
 * Sui: 0x and 64 hex digits, lower-cased).
 */
export function walletAddress(chain: Chain, raw: unknown): string {
  if (typeof raw !== "string" || raw.length === 0) {
    throw new GatewayError(
      raw === undefined || raw === null || raw === "" ? "parameter_missing" : "address_invalid",
      {
        param: "address",
      },
    );
  }
  const address = chainModule(chain).parseAddress(raw);
  if (address === undefined) {
    throw new GatewayError("address_invalid", {
      param: "address",
      message: `A ${chain} address is ${chainModule(chain).addressShape}.`,
    });
  }
  return address;
}
