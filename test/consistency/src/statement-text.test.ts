// A query's text may not depend on how many values it carries: every connection keeps a plan for
// each distinct text for its life (docs/operations.md, "One statement text per query"). Lists go
// in as plain arrays: `= any(${ids}::text[])`, `insert … select * from unnest(…)`.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./literal-lists.js";
import { trackedFiles } from "./repo-files.js";

/** `in ${sql(list)}` and `insert into t ${sql(rows)}`: postgres.js expands both into one
 * `$n` parameter per value. */
const EXPANDING = [/\bin \$\{\s*\w+\(/g, /\binsert into \w+ \$\{\s*\w+\(/g];

function productionSources(): string[] {
  return trackedFiles().filter(
    (file) => /^(packages|services|signer)\/.*\.ts$/.test(file) && !/\.test\.ts$|\/test\//.test(file),
  );
}

export function expandingLists(text: string): string[] {
  return EXPANDING.flatMap((pattern) =>
    [...text.matchAll(pattern)].map((m) => `line ${text.slice(0, m.index).split("\n").length}: ${m[0]}`),
  );
}

/** `${` in a test string, spelled so that it is not read as a mistaken template. */
const OPEN = "$" + "{";

describe("one statement text per query", () => {
  it("finds the shapes it forbids", () => {
    expect(expandingLists(`x\`select 1 from t where id in ${OPEN}tx(ids)}\``)).toEqual([
      `line 1: in ${OPEN}tx(`,
    ]);
    expect(expandingLists(`x\`\ninsert into payments ${OPEN}sql(values)} on conflict\``)).toEqual([
      `line 2: insert into payments ${OPEN}sql(`,
    ]);
    expect(expandingLists(`x\`where id = any(${OPEN}ids}::text[])\``)).toEqual([]);
  });

  it("no production query passes sql.array(…), which a client's first queries send without braces", () => {
    // docs/operations.md, "One statement text per query": a plain array is typed by the server.
    const found = productionSources().flatMap((file) =>
      [...readFileSync(path.join(ROOT, file), "utf8").matchAll(/\b(sql|tx)\.array\(/g)].map(() => file),
    );
    expect(found).toEqual([]);
  });

  it("no production query expands a list into one parameter per value", () => {
    const found = productionSources().flatMap((file) =>
      expandingLists(readFileSync(path.join(ROOT, file), "utf8")).map((hit) => `${file} ${hit}`),
    );
    expect(found).toEqual([]);
  });
});
