import { readFileSync } from "node:fs";
import type { SignerClient } from "@gateway/signer-client";
import type { DepositAddressSource } from "./deps.js";

/** Deposit addresses come from the signer, the only holder of the seed. */
export function signerDepositAddresses(client: SignerClient): DepositAddressSource {
  return {
    derive: (chain, mode, index) => client.deriveDepositAddress({ chain, mode, index: Number(index) }),
  };
}

/** Reads the mTLS material named in the config; all three files or none. */
export function signerTls(config: {
  SIGNER_CA_FILE?: string | undefined;
  SIGNER_CERT_FILE?: string | undefined;
  SIGNER_KEY_FILE?: string | undefined;
}) {
  const { SIGNER_CA_FILE: ca, SIGNER_CERT_FILE: cert, SIGNER_KEY_FILE: key } = config;
  if (!ca || !cert || !key) return undefined;
  return { ca: readFileSync(ca), cert: readFileSync(cert), key: readFileSync(key) };
}
