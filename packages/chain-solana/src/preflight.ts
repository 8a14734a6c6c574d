// The Solana endpoint's chain preflight (packages/chain-preflight runs it): it is the declared
// network (its genesis hash), its newest finalized block is recent, and both configured mints are
// initialized SPL mints of 6 decimals.
import type { ChainProbe, CheckOf, PreflightCheck, ProbeBasics } from "@gateway/chain-preflight";
import { chainProbe, probeBasics } from "@gateway/chain-preflight";
import { type Connection, PublicKey } from "@solana/web3.js";
import { solanaConnection } from "./connection.js";

const TOKEN_PROGRAMS = new Set([
  "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  "TokenzQdBNbLqP5VEhdkAS5EPFLC1PazSjqHc9gJNp8X",
]);
/** An SPL mint: 82 bytes; `decimals` at offset 44, `is_initialized` at 45. */
const MINT_SIZE = 82;

export interface SolanaProbeOptions extends ProbeBasics {
  connection: Pick<Connection, "getGenesisHash" | "getSlot" | "getBlockTime" | "getAccountInfo">;
  mints: { USDC: string; USDT: string };
}

export function createSolanaProbe(options: SolanaProbeOptions): ChainProbe {
  const { connection } = options;
  return chainProbe({
    ...options,
    chain: "solana",
    endpoint: "SOLANA_RPC_URL",
    declaredBy: "SOLANA_GENESIS_HASH",
    name: "Solana",
    identify: () => connection.getGenesisHash(),
    compare: (genesis) =>
      genesis === options.networkId ? { same: `genesis ${genesis}` } : { other: `genesis ${genesis}` },
    async newest(_genesis, now) {
      const slot = await connection.getSlot("finalized");
      const blockTime = await connection.getBlockTime(slot);
      if (blockTime === null) return `the endpoint has no time for finalized slot ${slot}`;
      return { newest: `newest finalized block (slot ${slot})`, lagMs: now() - blockTime * 1000 };
    },
    coin: (coin, check) => mintCheck(connection, check, coin, options.mints[coin]),
  });
}

/** The coin's configured mint is an initialized SPL mint of 6 decimals. */
async function mintCheck(
  connection: SolanaProbeOptions["connection"],
  check: CheckOf,
  coin: "USDC" | "USDT",
  address: string,
): Promise<PreflightCheck> {
  const variable = `SOLANA_${coin}_MINT`;
  let key: PublicKey;
  try {
    key = new PublicKey(address);
  } catch {
    return check(variable, false, `${address} is not a Solana address`);
  }
  const account = await connection.getAccountInfo(key, "finalized");
  if (!account) return check(variable, false, `no account ${address} on this network`);
  if (!TOKEN_PROGRAMS.has(account.owner.toBase58()) || account.data.length < MINT_SIZE) {
    return check(variable, false, `${address} is not a token mint (owner ${account.owner.toBase58()})`);
  }
  if (account.data[45] !== 1) return check(variable, false, `mint ${address} is not initialized`);
  const decimals = account.data[44];
  if (decimals !== 6) return check(variable, false, `mint ${address} has ${decimals} decimals, not 6`);
  return check(variable, true, `${coin} mint ${address} exists with 6 decimals`);
}

/** The variables the probe reads: the watcher's, settlement's and the doctor's, the same names. */
export interface SolanaPreflightConfig {
  SOLANA_RPC_URL: string;
  SOLANA_NETWORK: "mainnet" | "localnet";
  SOLANA_GENESIS_HASH?: string | undefined;
  SOLANA_USDC_MINT: string;
  SOLANA_USDT_MINT: string;
  CHAIN_MAX_LAG_SECONDS: number;
}

/** The probe of a service's configuration: the same values the service uses, the same variables. */
export function solanaProbeFromConfig(
  config: SolanaPreflightConfig,
  connection = solanaConnection(config.SOLANA_RPC_URL, "finalized"),
): ChainProbe {
  return createSolanaProbe({
    ...probeBasics("solana", config.SOLANA_NETWORK, config.SOLANA_GENESIS_HASH, config),
    connection,
    mints: { USDC: config.SOLANA_USDC_MINT, USDT: config.SOLANA_USDT_MINT },
  });
}
