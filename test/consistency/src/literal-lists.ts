// Reads the lists that other files copy, straight from their source text, so a test can compare
// them with the contracts: the TypeScript string-literal unions of the SDK, which ships without
// dependencies and so cannot import them.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export const ROOT = path.resolve(import.meta.dirname, "../../..");

function parse(file: string): ts.SourceFile {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function stringsOfUnion(type: ts.TypeNode, where: string): string[] {
  const members = ts.isUnionTypeNode(type) ? type.types : [type];
  return members.map((member) => {
    if (ts.isLiteralTypeNode(member) && ts.isStringLiteral(member.literal)) return member.literal.text;
    throw new Error(`${where}: ${member.getText()} is not a string literal`);
  });
}

/** `export type Name = "a" | "b"` → ["a", "b"]. */
export function typeAliasUnion(file: string, name: string): string[] {
  const source = parse(file);
  for (const statement of source.statements) {
    if (ts.isTypeAliasDeclaration(statement) && statement.name.text === name)
      return stringsOfUnion(statement.type, `${file} ${name}`);
  }
  throw new Error(`${file} has no type ${name}`);
}

/** `interface Name { prop: "a" | "b" }` → ["a", "b"]. */
export function interfacePropertyUnion(file: string, name: string, property: string): string[] {
  const source = parse(file);
  for (const statement of source.statements) {
    if (!ts.isInterfaceDeclaration(statement) || statement.name.text !== name) continue;
    for (const member of statement.members) {
      if (ts.isPropertySignature(member) && member.name.getText() === property && member.type)
        return stringsOfUnion(member.type, `${file} ${name}.${property}`);
    }
  }
  throw new Error(`${file} has no interface ${name} with a property ${property}`);
}
