import { CHAINS } from "@gateway/contracts";
import { type Chain, parseChain } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import bs58 from "bs58";
import { z } from "zod";
import { parsedBy } from "../../http/fields.js";

const SUI_ADDRESS = /^0x[0-9a-fA-F]{64}$/;

/** The `{chain}` path parameter, case-insensitive; `chain_unsupported` otherwise. */
export const chainParam = parsedBy(z.string(), parseChain, z.enum(CHAINS));

/**
 * A payout address in its canonical form, or 400 `address_invalid`. Solana: base58 of exactly 32
 * bytes, written canonically (re-encoding gives the same text, so no look-alike spellings).
 * Off-curve keys are allowed, since multisig vaults (Squads) are program addresses. Sui: 0x and
 * 64 hex digits, stored lower-case.
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
  const address = raw.trim();
  switch (chain) {
    case "solana": {
      let bytes: Uint8Array;
      try {
        bytes = bs58.decode(address);
      } catch {
        throw invalid(chain);
      }
      if (bytes.length !== 32 || bs58.encode(bytes) !== address) throw invalid(chain);
      return address;
    }
    case "sui":
      if (!SUI_ADDRESS.test(address)) throw invalid(chain);
      return address.toLowerCase();
  }
}

function invalid(chain: Chain): GatewayError {
  const shape = chain === "solana" ? "a base58 public key of 32 bytes" : "0x followed by 64 hex digits";
  return new GatewayError("address_invalid", {
    param: "address",
    message: `A ${chain} address is ${shape}.`,
  });
}
