// web3.js checks every RPC answer with superstruct; our patch of it (docs/solana.md, "Answers
// checked more cheaply") must be what web3.js loads, in both of superstruct's builds.
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

// superstruct as web3.js resolves it, not as this package would.
const web3Entry = createRequire(import.meta.url).resolve("@solana/web3.js");
const superstructDir = path.dirname(createRequire(web3Entry).resolve("superstruct/package.json"));

/** The part of superstruct's API this test uses (it is web3.js's dependency, not ours). */
interface Superstruct {
  StructError: { new (...args: never[]): Error; prototype: Error };
  create(value: unknown, struct: unknown): unknown;
  nullable(struct: unknown): unknown;
  union(structs: unknown[]): unknown;
  type(schema: object): unknown;
  string(): unknown;
}

/** How many StructErrors checking `value` against `struct` builds, and what it returns. */
function errorsBuilt(s: Superstruct, value: unknown) {
  let built = 0;
  const proto = s.StructError.prototype;
  // Every StructError sets its own `name`: counted through a setter on the prototype.
  Object.defineProperty(proto, "name", {
    configurable: true,
    set(this: object, name: string) {
      built += 1;
      Object.defineProperty(this, "name", { value: name, writable: true, configurable: true });
    },
  });
  try {
    // web3.js's shape for a transaction's `err`: null, an object or a string.
    const result = s.create(value, s.nullable(s.union([s.type({}), s.string()])));
    return { built, result };
  } finally {
    delete (proto as { name?: string }).name;
  }
}

describe("the superstruct web3.js loads", () => {
  for (const build of ["dist/index.cjs", "dist/index.mjs"]) {
    it(`(${build}) accepts a null err without building an error for each union member`, async () => {
      const s = (await import(pathToFileURL(path.join(superstructDir, build)).href)) as Superstruct;
      expect(errorsBuilt(s, null)).toEqual({ built: 0, result: null });
      // What it accepts and refuses is unchanged.
      expect(errorsBuilt(s, "InstructionError")).toEqual({ built: 0, result: "InstructionError" });
      expect(() => s.create(5, s.nullable(s.union([s.type({}), s.string()])))).toThrow(s.StructError);
    });
  }
});
