// The network a service's chain settings belong to is declared, never guessed: mainnet (the
// default), whose token ids must be mainnet's, or a local network named by its identity. These
// are the checks a configuration can settle alone; the chain preflight (packages/chain-preflight)
// then asks the endpoint whether it is that network (docs/going-live.md#the-chain-preflight).
import { type Chain, chainModule, isMainnetId } from "@gateway/chains";
import type { z } from "zod";

interface ChainVariables {
  network: string;
  /** The declared identity: the genesis hash, the chain identifier. */
  id: string;
  tokens: { USDC: string; USDT: string };
}

const VARIABLES: Record<Chain, ChainVariables> = {
  solana: {
    network: "SOLANA_NETWORK",
    id: "SOLANA_GENESIS_HASH",
    tokens: { USDC: "SOLANA_USDC_MINT", USDT: "SOLANA_USDT_MINT" },
  },
  sui: {
    network: "SUI_NETWORK",
    id: "SUI_CHAIN_ID",
    tokens: { USDC: "SUI_USDC_COIN_TYPE", USDT: "SUI_USDT_COIN_TYPE" },
  },
};

/** The variables that declare a chain's network and tokens (for messages and the doctor). */
export function chainVariables(chain: Chain): ChainVariables {
  return VARIABLES[chain];
}

/** One spelling per Sui type (`0x2::sui::SUI` and its 64-digit form are the same); mints as they are. */
function canonicalToken(chain: Chain, id: string): string {
  if (chain !== "sui") return id;
  const [address = "", ...rest] = id.split("::");
  return [address.replace(/^0x/i, "").toLowerCase().padStart(64, "0"), ...rest].join("::");
}

/** Whether `id` is one of mainnet's token ids for `coin` on `chain`. */
export function isMainnetToken(chain: Chain, coin: "USDC" | "USDT", id: string): boolean {
  return chainModule(chain).mainnet.tokens[coin].some(
    (known) => canonicalToken(chain, known) === canonicalToken(chain, id),
  );
}

type Issue = { variable: string; problem: string };

/** What is wrong with one chain's declaration in `config`; the fields the schema lacks are not looked at. */
export function networkDeclarationIssues(chain: Chain, config: Record<string, unknown>): Issue[] {
  const names = VARIABLES[chain];
  const network = config[names.network];
  if (network === undefined) return [];
  const issues: Issue[] = [];
  const id = config[names.id];
  const mainnet = chainModule(chain).mainnet;
  if (network === "mainnet") {
    if (typeof id === "string" && !isMainnetId(chain, id)) {
      issues.push({
        variable: names.id,
        problem: `is not ${chainModule(chain).name} mainnet's (${mainnet.networkId}); unset it, or declare ${names.network}=localnet`,
      });
    }
    for (const coin of ["USDC", "USDT"] as const) {
      const token = config[names.tokens[coin]];
      if (typeof token === "string" && !isMainnetToken(chain, coin, token)) {
        issues.push({
          variable: names.tokens[coin],
          problem: `is not mainnet's ${coin} (${mainnet.tokens[coin].join(" or ")})`,
        });
      }
    }
  } else if (names.id in config || typeof id === "string") {
    if (typeof id !== "string") {
      issues.push({ variable: names.id, problem: `required with ${names.network}=${String(network)}` });
    } else if (isMainnetId(chain, id)) {
      issues.push({ variable: names.id, problem: `is mainnet's: declare ${names.network}=mainnet` });
    }
  }
  return issues;
}

/**
 * A service schema whose parse also refuses a network declaration that does not hold together,
 * naming the variable. Only the chains whose network variable the schema has are looked at.
 */
export function declaredNetworks<S extends z.ZodObject>(schema: S): S {
  const idKeys = Object.values(VARIABLES)
    .map((v) => v.id)
    .filter((key) => key in schema.shape);
  return schema.superRefine((value, ctx) => {
    // A field the schema declares but the environment left unset is present as undefined here.
    const config: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const key of idKeys) if (!(key in config)) config[key] = undefined;
    for (const chain of Object.keys(VARIABLES) as Chain[]) {
      for (const issue of networkDeclarationIssues(chain, config)) {
        ctx.addIssue({ code: "custom", path: [issue.variable], message: issue.problem });
      }
    }
  }) as S;
}
