// Concepts written once (docs/code-layout.md, "One home"): a second copy of one fails here, so
// it is imported from its home rather than written again where it is needed.
import { readFileSync } from "node:fs";
import path from "node:path";
import { MODES } from "@gateway/contracts";
import { PaymentSchema } from "@gateway/contracts/payment-resource";
import { MODE_NAMES, MODE_TO_PROTO, modeFromProto } from "@gateway/signer-proto";
import ts from "typescript";
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

/** The resource's own names: a declaration of one must be inferred from the schema. */
const PAYMENT_NAMES = new Set(["Payment", "PaymentResource"]);
const PAYMENT_FIELDS = Object.keys(PaymentSchema.shape);

/**
 * Object types written out by hand that describe the Payment resource: one named after it, or
 * one, whatever its name, that lists more than half of its fields.
 */
export function handWrittenPayments(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const where = (node: ts.Node) =>
    `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    const named = (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) && node.name;
    if (named && PAYMENT_NAMES.has(named.text)) {
      const inferred = ts.isTypeAliasDeclaration(node) && !ts.isTypeLiteralNode(node.type);
      if (!inferred || /^\s*(Payment|PaymentResource)\s*$/.test(node.type.getText())) found.push(where(node));
    }
    if (ts.isInterfaceDeclaration(node) || ts.isTypeLiteralNode(node)) {
      const members = new Set(
        node.members.flatMap((m) => (m.name ? [m.name.getText().replace(/^"|"$/g, "")] : [])),
      );
      if (PAYMENT_FIELDS.filter((field) => members.has(field)).length * 2 > PAYMENT_FIELDS.length)
        found.push(where(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...new Set(found)];
}

describe("one Payment type", () => {
  it("finds the resource written out, under its name or another, and an alias of it", () => {
    const fields = PAYMENT_FIELDS.map((field) => `  ${field}: string;`).join("\n");
    const source = [
      `export interface Payment {\n${fields}\n}`,
      `type Shown = {\n${fields}\n};`,
      "export type PaymentResource = Payment;",
      "export type Payment = z.infer<typeof PaymentSchema>;",
      "interface PaymentRow { id: string; checkout_url: string }",
    ].join("\n");
    const lines = handWrittenPayments("x.ts", source).map((hit) => Number(hit.split(":")[1]));
    const fieldCount = PAYMENT_FIELDS.length;
    expect(lines).toEqual([1, fieldCount + 3, 2 * fieldCount + 5]);
  });

  it("is inferred from PaymentSchema; the SDK's, generated from the OpenAPI document, is the only other", () => {
    const found = handWrittenTypeScript()
      .filter((file) => file !== SELF)
      .flatMap((file) => handWrittenPayments(file, readFileSync(path.join(ROOT, file), "utf8")));
    expect(found).toEqual([]);
  });
});
