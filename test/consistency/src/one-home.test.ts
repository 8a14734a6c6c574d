// Concepts written once (docs/code-layout.md, "One home"): a second copy of one fails here, so
// it is imported from its home rather than written again where it is needed.
import { readFileSync } from "node:fs";
import path from "node:path";
import { MODES } from "@gateway/contracts";
import { MODE_NAMES, MODE_TO_PROTO, modeFromProto } from "@gateway/signer-proto";
import { describe, expect, it } from "vitest";
import { ROOT } from "./literal-lists.js";
import { handWrittenTypeScript } from "./repo-files.js";

const MODE_HOME = "packages/signer-proto/src/mode.ts";
/** This file: its examples are mappings on purpose. */
const SELF = path.relative(ROOT, import.meta.filename);
const PROTO_MODE = /\bMode\.(LIVE|TEST|UNSPECIFIED)\b/;
const MODE_NAME = /["'](live|test)["']|\b(live|test)\s*:/;

/** Lines that map the wire enum `Mode` to a mode's name or back, or read the enum's own names. */
export function modeMappings(text: string): number[] {
  return text.split("\n").flatMap((line, index) => {
    const code = line.trim();
    if (code.startsWith("//") || code.startsWith("*")) return [];
    const maps = (PROTO_MODE.test(code) && MODE_NAME.test(code)) || /\bMode\[/.test(code);
    return maps ? [index + 1] : [];
  });
}

describe("one mode mapping", () => {
  it("finds a mapping in each shape it has been written in, and leaves plain uses alone", () => {
    const source = [
      "const m = { live: Mode.LIVE, test: Mode.TEST };",
      'mode: d.mode === "live" ? Mode.LIVE : Mode.TEST,',
      'if (mode === Mode.TEST) return "test";',
      '[Mode.LIVE, "live"],',
      "const name = Mode[mode].toLowerCase();",
      "// Mode.LIVE is spelled live in the signed messages",
      "request({ mode: Mode.LIVE, index: 3 });",
      "mode: MODE_TO_PROTO[input.mode],",
    ].join("\n");
    expect(modeMappings(source)).toEqual([1, 2, 3, 4, 5]);
  });

  it("names the contracts' modes, and each maps to the wire enum and back", () => {
    expect([...MODE_NAMES].sort()).toEqual([...MODES].sort());
    for (const mode of MODES) expect(modeFromProto(MODE_TO_PROTO[mode])).toBe(mode);
  });

  it(`is written in ${MODE_HOME} only`, () => {
    const files = handWrittenTypeScript().filter((file) => file !== SELF);
    const found = files.flatMap((file) =>
      modeMappings(readFileSync(path.join(ROOT, file), "utf8")).map((line) => `${file}:${line}`),
    );
    expect(found.filter((hit) => !hit.startsWith(`${MODE_HOME}:`))).toEqual([]);
    expect(found.some((hit) => hit.startsWith(`${MODE_HOME}:`))).toBe(true);
  });
});
