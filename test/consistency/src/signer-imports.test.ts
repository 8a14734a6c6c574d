// The signer's chains/, keys/ and intents/ share their terms through vocabulary.ts, which imports
// no part of the signer, so they import one another in one direction (docs/code-layout.md).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./literal-lists.js";

const SIGNER = path.join(ROOT, "signer/src");
const LAYERED = ["chains", "keys", "intents", "vocabulary.ts"];

/** Relative imports of a source, resolved to paths under signer/src (`.ts`). */
export function relativeImports(file: string, text: string): string[] {
  return [...text.matchAll(/(?:import|export)[^;]*?from\s+"(\.{1,2}\/[^"]+)"/gs)].map((m) =>
    path.normalize(path.join(path.dirname(file), m[1]!.replace(/\.js$/, ".ts"))),
  );
}

/** Files that can reach themselves again through imports among `graph`'s files. */
export function filesInCycles(graph: Map<string, string[]>): string[] {
  const reaches = (from: string, target: string, seen: Set<string>): boolean =>
    (graph.get(from) ?? []).some(
      (next) =>
        next === target || (!seen.has(next) && graph.has(next) && reaches(next, target, seen.add(next))),
    );
  return [...graph.keys()].filter((file) => reaches(file, file, new Set()));
}

function layeredSources(): Map<string, string[]> {
  const files = LAYERED.flatMap((entry) =>
    entry.endsWith(".ts")
      ? [entry]
      : readdirSync(path.join(SIGNER, entry)).map((name) => path.join(entry, name)),
  ).filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"));
  return new Map(
    files.map((file) => [file, relativeImports(file, readFileSync(path.join(SIGNER, file), "utf8"))]),
  );
}

describe("the signer's layers", () => {
  it("finds a cycle, type-only imports included", () => {
    const graph = new Map([
      ["chains/a.ts", relativeImports("chains/a.ts", 'import type { X } from "../intents/b.js";')],
      ["intents/b.ts", relativeImports("intents/b.ts", 'import { a } from "../chains/a.js";')],
      ["vocabulary.ts", []],
    ]);
    expect(filesInCycles(graph).sort()).toEqual(["chains/a.ts", "intents/b.ts"]);
  });

  it("chains/, keys/, intents/ and vocabulary.ts import without a cycle", () => {
    const graph = layeredSources();
    expect(graph.size).toBeGreaterThan(5);
    expect(filesInCycles(graph)).toEqual([]);
    expect(graph.get("vocabulary.ts")).toEqual([]);
  });
});
