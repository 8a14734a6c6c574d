// The addresses the signer hands out: deposit addresses and the vault and gas wallets of every
// chain and mode. Read-only use of the keyring that decides nothing about money, so it sits
// outside the decision core.
import { Chain, Mode, type ServiceAddresses } from "@gateway/signer-proto";
import type { ChainName, Keyring, ModeName } from "./keys/keyring.js";

export class BadRequestError extends Error {
  override readonly name = "BadRequestError";
}

export const CHAINS: [Chain, ChainName][] = [
  [Chain.SOLANA, "solana"],
  [Chain.SUI, "sui"],
];
export const MODES: [Mode, ModeName][] = [
  [Mode.LIVE, "live"],
  [Mode.TEST, "test"],
];

export function chainName(chain: Chain): ChainName {
  const found = CHAINS.find(([c]) => c === chain);
  if (!found) throw new BadRequestError("chain must be CHAIN_SOLANA or CHAIN_SUI");
  return found[1];
}

export function modeName(mode: Mode): ModeName {
  const found = MODES.find(([m]) => m === mode);
  if (!found) throw new BadRequestError("mode must be MODE_LIVE or MODE_TEST");
  return found[1];
}

export interface AddressBook {
  deriveDepositAddress(chain: Chain, mode: Mode, index: number): string;
  serviceAddresses(): Omit<ServiceAddresses, "$typeName">[];
}

export function createAddressBook(keyring: Keyring): AddressBook {
  return {
    deriveDepositAddress(chain, mode, index) {
      if (!Number.isInteger(index) || index < 0 || index >= 2 ** 31)
        throw new BadRequestError("index must be below 2^31");
      return keyring.key(chainName(chain), "deposit", modeName(mode), index).address;
    },

    serviceAddresses() {
      return CHAINS.flatMap(([chain, name]) =>
        MODES.map(([mode, modeText]) => ({
          chain,
          mode,
          vault: keyring.key(name, "vault", modeText).address,
          gas: keyring.key(name, "gas", modeText).address,
        })),
      );
    },
  };
}
