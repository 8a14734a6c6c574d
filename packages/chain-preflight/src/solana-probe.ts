// The Solana endpoint's preflight: it is the declared network (its genesis hash), its newest
// finalized block is recent, and both configured mints are initialized SPL mints of 6 decimals.
import { type Connection, PublicKey } from "@solana/web3.js";
import {
  type ChainProbe,
  checksOf,
  freshnessCheck,
  type PreflightCheck,
  type ProbeBasics,
  reason,
} from "./check.js";

const TOKEN_PROGRAMS = new Set([
  "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  "TokenzQdBNbLqP5VEhdkAS5EPFLC1PazSjqHc9gJNp8X",
]);
/** An SPL mint: 82 bytes; `decimals` at offset 44, `is_initialized` at 45. */
const MINT_SIZE = 82;

export interface SolanaProbeOptions extends ProbeBasics {
  connection: Pick<Connection, "getGenesisHash" | "getSlot" | "getBlockTime" | "getAccountInfo">;
  /** The genesis hash declared (SOLANA_GENESIS_HASH, or mainnet's). */
  genesisHash: string;
  mints: { USDC: string; USDT: string };
}

export function createSolanaProbe(options: SolanaProbeOptions): ChainProbe {
  const { connection } = options;
  const now = options.now ?? Date.now;
  const check = checksOf("solana");

  async function mint(coin: "USDC" | "USDT"): Promise<PreflightCheck> {
    const variable = `SOLANA_${coin}_MINT`;
    const address = options.mints[coin];
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

  return {
    chain: "solana",
    endpoint: "SOLANA_RPC_URL",
    async run() {
      let genesis: string;
      try {
        genesis = await connection.getGenesisHash();
      } catch (err) {
        return [check("SOLANA_RPC_URL", false, `the endpoint did not answer: ${reason(err)}`)];
      }
      const network = options.network === "mainnet" ? "Solana mainnet" : "the declared local network";
      if (genesis !== options.genesisHash) {
        // Another network: nothing else it says is worth checking.
        return [
          check(
            "SOLANA_GENESIS_HASH",
            false,
            `SOLANA_RPC_URL is another network: genesis ${genesis}, not ${options.genesisHash} (${network})`,
          ),
        ];
      }
      const results = [
        check("SOLANA_GENESIS_HASH", true, `SOLANA_RPC_URL is ${network} (genesis ${genesis})`),
      ];
      try {
        const slot = await connection.getSlot("finalized");
        const blockTime = await connection.getBlockTime(slot);
        if (blockTime === null) {
          results.push(check("SOLANA_RPC_URL", false, `the endpoint has no time for finalized slot ${slot}`));
        } else {
          const newest = `newest finalized block (slot ${slot})`;
          const lag = now() - blockTime * 1000;
          results.push(freshnessCheck(check, "SOLANA_RPC_URL", newest, lag, options.maxLagMs));
        }
        results.push(await mint("USDC"), await mint("USDT"));
      } catch (err) {
        results.push(check("SOLANA_RPC_URL", false, `the endpoint failed a read: ${reason(err)}`));
      }
      return results;
    },
  };
}
