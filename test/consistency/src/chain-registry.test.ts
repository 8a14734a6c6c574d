// The chain registry (packages/chains) is the source for chains and what each carries. Its type
// check already fails on a chain of the contracts without a module; this fails when a chain or an
// asset is added to the registry and not to the places that do not import it: the isolated
// signer's own lists, the database's per-chain sequences, the
// runtime map of the chains' packages, and any production file spelling the chains out again.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { CHAIN_PACKAGES } from "@gateway/chain-packages";
import { CHAIN_MODULES, CHAINS, chainModule } from "@gateway/chains";
import { CHAINS as CONTRACT_CHAINS, MODES } from "@gateway/contracts";
import * as domain from "@gateway/domain";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGNER_CHAINS } from "../../../signer/src/chains/index.js";
import { ROOT } from "./literal-lists.js";

function sameSet(copy: readonly string[], source: readonly string[]) {
  expect(new Set(copy).size, `${copy.join(", ")} repeats a value`).toBe(copy.length);
  expect([...copy].sort()).toEqual([...source].sort());
}

const packageJson = (dir: string) =>
  JSON.parse(readFileSync(path.join(ROOT, dir, "package.json"), "utf8")) as {
    name: string;
    dependencies?: Record<string, string>;
  };

describe("the registry", () => {
  it("has a module for exactly the contracts' chains", () => {
    sameSet(Object.keys(CHAIN_MODULES), CONTRACT_CHAINS);
    sameSet(CHAINS, CONTRACT_CHAINS);
  });

  it("is where the domain's per-chain coins and the coins' decimals come from", () => {
    for (const chain of CHAINS) {
      expect(domain.CHAIN_COINS[chain]).toEqual(chainModule(chain).assets.map((a) => a.coin));
      for (const asset of chainModule(chain).assets) {
        expect(domain.DECIMALS[asset.coin], `${chain} ${asset.coin}`).toBe(asset.decimals);
      }
    }
    // Every coin is carried by some chain, or no customer could ever pay it.
    sameSet([...new Set(CHAINS.flatMap((chain) => domain.CHAIN_COINS[chain]))], domain.COINS);
  });
});

describe("the signer (isolated: it keeps its own lists, checked here)", () => {
  it("knows every chain: a module in SIGNER_CHAINS", () => {
    sameSet(
      SIGNER_CHAINS.map((chain) => chain.name),
      CHAINS,
    );
  });
  it("has a proto enum value per chain", () => {
    const proto = readFileSync(path.join(ROOT, "proto/gateway/signer/v1/signer.proto"), "utf8");
    const chainEnum = /enum Chain \{([^}]*)\}/.exec(proto)?.[1] ?? "";
    for (const chain of CHAINS) expect(chainEnum, chain).toContain(`CHAIN_${chain.toUpperCase()} =`);
    // Each signer module speaks its own chain's value of the enum.
    for (const chain of SIGNER_CHAINS)
      expect(chainEnum, chain.name).toContain(`CHAIN_${chain.name.toUpperCase()} = ${chain.proto};`);
  });
});

describe("every chain is served", () => {
  const dependencies = (dir: string) => Object.keys(packageJson(dir).dependencies ?? {});

  // The runtime map's type is checked by the compiler; this checks that each entry is its chain's
  // package, which its part's code comes from.
  it("by its package, one entry of the runtime map", async () => {
    sameSet(Object.keys(CHAIN_PACKAGES), CHAINS);
    for (const chain of CHAINS) {
      const dir = `packages/chain-${chain}`;
      expect(packageJson(dir).name).toBe(chainModule(chain).chainPackage);
      expect(dependencies(dir)).toEqual(
        expect.arrayContaining(["@gateway/chain-kit", "@gateway/watcher-kit"]),
      );
      expect(dependencies("packages/chain-packages")).toContain(chainModule(chain).chainPackage);
      const pkg = await import(path.join(ROOT, dir, "src/chain-package.ts"));
      expect(Object.values(pkg)).toContain(CHAIN_PACKAGES[chain]);
      const watcher = await CHAIN_PACKAGES[chain].watcher();
      expect(watcher.chain).toBe(chain);
      expect(Object.values(await import(path.join(ROOT, dir, "src/watcher/index.ts")))).toContain(watcher);
    }
  });

  // Services reach a chain's code only through the map, so none of them names a chain package.
  it("to the services through the runtime map alone", () => {
    for (const service of ["watcher", "settlement"])
      expect(dependencies(`services/${service}`)).toContain("@gateway/chain-packages");
    for (const dir of readdirSync(path.join(ROOT, "services")))
      for (const chain of CHAINS)
        expect(dependencies(`services/${dir}`), dir).not.toContain(chainModule(chain).chainPackage);
  });
});

describe("the database", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.drop());

  it("has a deposit index sequence per chain and mode", async () => {
    const rows = await db.sql<{ name: string }[]>`
      select sequence_name as name from information_schema.sequences where sequence_name like 'deposit_index_%'`;
    sameSet(
      rows.map((r) => r.name),
      CHAINS.flatMap((chain) => MODES.map((mode) => `deposit_index_${chain}_${mode}`)),
    );
  });
});

describe("no production file spells the chains out again", () => {
  /** Copies that cannot import the registry and are compared with it above or in contracts-drift. */
  const CHECKED_COPIES = new Set(["packages/sdk/src/gen/types.ts", "packages/contracts/src/money.ts"]);
  const literal = `(?:${CHAINS.map((chain) => `["']${chain}["']`).join("|")})`;
  const spelled = new RegExp(`${literal}\\s*\\|\\s*${literal}`);

  function sources(dir: string): string[] {
    return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
      .filter((file) => /\.ts$/.test(file) && !/\.test\.ts$|test-support|node_modules|\/gen\//.test(file))
      .map((file) => path.join(dir, file));
  }

  it('has no "solana" | "sui" union outside the checked copies', () => {
    const roots = [
      ...readdirSync(path.join(ROOT, "packages")).map((p) => `packages/${p}/src`),
      ...readdirSync(path.join(ROOT, "services")).map((s) => `services/${s}/src`),
    ];
    const found: string[] = [];
    for (const root of roots) {
      for (const file of sources(root)) {
        if (CHECKED_COPIES.has(file)) continue;
        // Comments may name the chains; code may not.
        const text = readFileSync(path.join(ROOT, file), "utf8")
          .replace(/\/\*[\s\S]*?\*\//g, "")
          .replace(/\/\/.*$/gm, "");
        if (spelled.test(text)) found.push(file);
      }
    }
    expect(found).toEqual([]);
  });
});
