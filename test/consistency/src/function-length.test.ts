// No function of production code runs past 120 lines, and one past 80 says in one line, just
// above it, why it stays whole (`// Length: …`): a closure the size of a module hides its state.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "./literal-lists.js";

const LIMIT = 120;
const DEFEND_ABOVE = 80;
const DEFENCE = /^\s*\/\/ Length: \S/;

function productionSources(): string[] {
  return execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\0")
    .filter((file) => /^(packages\/[^/]+|services\/[^/]+|signer)\/src\/.*\.ts$/.test(file))
    .filter((file) => !/\.test\.ts$|\.d\.ts$|\/gen\//.test(file));
}

interface LongFunction {
  where: string;
  lines: number;
  defended: boolean;
}

/** Every function-like node past DEFEND_ABOVE lines, with whether the line above it defends it. */
export function longFunctions(file: string, text: string): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = text.split("\n");
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = last - first + 1;
      if (length > DEFEND_ABOVE) {
        // The line above the statement that holds the function (`const x = () => …`, `export function`).
        const holder = statementOf(node);
        const above = lines[source.getLineAndCharacterOfPosition(holder.getStart()).line - 1] ?? "";
        found.push({ where: `${file}:${first + 1}`, lines: length, defended: DEFENCE.test(above) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function statementOf(node: ts.Node): ts.Node {
  let holder = node;
  while (
    holder.parent &&
    !ts.isSourceFile(holder.parent) &&
    !ts.isBlock(holder.parent) &&
    !ts.isClassLike(holder.parent) &&
    !ts.isObjectLiteralExpression(holder.parent)
  ) {
    holder = holder.parent;
  }
  return holder;
}

describe("function length", () => {
  it("finds a long function and reads its defence", () => {
    const body = Array.from({ length: 90 }, (_, n) => `  const v${n} = ${n};`).join("\n");
    expect(longFunctions("a.ts", `export function f() {\n${body}\n}\n`)).toEqual([
      { where: "a.ts:1", lines: 92, defended: false },
    ]);
    expect(longFunctions("a.ts", `// Length: one table.\nconst f = () => {\n${body}\n};\n`)).toEqual([
      { where: "a.ts:2", lines: 92, defended: true },
    ]);
  });

  it(`no production function is longer than ${LIMIT} lines`, () => {
    const all = productionSources().flatMap((file) =>
      longFunctions(file, readFileSync(path.join(ROOT, file), "utf8")),
    );
    expect(all.filter((f) => f.lines > LIMIT).map((f) => `${f.where} (${f.lines} lines)`)).toEqual([]);
  });

  it(`each production function past ${DEFEND_ABOVE} lines says why in a "// Length:" line above it`, () => {
    const all = productionSources().flatMap((file) =>
      longFunctions(file, readFileSync(path.join(ROOT, file), "utf8")),
    );
    expect(all.filter((f) => !f.defended).map((f) => `${f.where} (${f.lines} lines)`)).toEqual([]);
  });
});
