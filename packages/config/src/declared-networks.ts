// A service's chain settings declare their network, never guess it: mainnet (the default, with
// mainnet's token ids) or a local network named by its identity; the chain preflight then asks the
// endpoint (docs/going-live.md#the-chain-preflight). Each chain's variables: chain-configs.ts.
import { type Chain, chainModule, isMainnetId } from "@gateway/chains";
import type { z } from "zod";

export interface ChainVariables {
  network: string;
  /** The declared identity: the genesis hash, the chain identifier. */
  id: string;
  tokens: { readonly USDC: string; readonly USDT: string };
}

/** How a chain's network is declared: its variables, and one spelling per token id. */
export interface NetworkDeclaration {
  variables: ChainVariables;
  /** When a token id has several spellings (Sui's short and 64-digit addresses); ids as they are otherwise. */
  canonicalToken?: (id: string) => string;
}

export type NetworkDeclarations = { readonly [C in Chain]: NetworkDeclaration };

/** Whether `id` is one of mainnet's token ids for `coin` on `chain`. */
export function isMainnetToken(
  chain: Chain,
  declaration: NetworkDeclaration,
  coin: "USDC" | "USDT",
  id: string,
): boolean {
  const canonical = declaration.canonicalToken ?? ((token: string) => token);
  return chainModule(chain).mainnet.tokens[coin].some((known) => canonical(known) === canonical(id));
}

type Issue = { variable: string; problem: string };

/** What is wrong with one chain's declaration in `config`; the fields the schema lacks are not looked at. */
export function networkDeclarationIssues(
  chain: Chain,
  declaration: NetworkDeclaration,
  config: Record<string, unknown>,
): Issue[] {
  const names = declaration.variables;
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
      if (typeof token === "string" && !isMainnetToken(chain, declaration, coin, token)) {
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
export function declaredNetworksOf<S extends z.ZodObject>(schema: S, declarations: NetworkDeclarations): S {
  const chains = Object.keys(declarations) as Chain[];
  const idKeys = chains.map((chain) => declarations[chain].variables.id).filter((key) => key in schema.shape);
  return schema.superRefine((value, ctx) => {
    // A field the schema declares but the environment left unset is present as undefined here.
    const config: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const key of idKeys) if (!(key in config)) config[key] = undefined;
    for (const chain of chains) {
      for (const issue of networkDeclarationIssues(chain, declarations[chain], config)) {
        ctx.addIssue({ code: "custom", path: [issue.variable], message: issue.problem });
      }
    }
  }) as S;
}
