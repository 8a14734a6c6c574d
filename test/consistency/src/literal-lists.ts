// Reads the lists that other files copy, straight from their source text, so a test can compare
// them with the contracts: TypeScript string-literal unions (the SDK, which ships without
// dependencies) and the literal arrays, sets and objects of the front-end's plain JavaScript.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export const ROOT = path.resolve(import.meta.dirname, "../../..");

function parse(file: string): ts.SourceFile {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const kind = file.endsWith(".js") ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
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

function topLevelInitializer(file: string, name: string): ts.Expression {
  const source = parse(file);
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.name.text === name && declaration.initializer)
        return declaration.initializer;
    }
  }
  throw new Error(`${file} declares no ${name}`);
}

function stringsOfArray(node: ts.Expression, where: string): string[] {
  if (!ts.isArrayLiteralExpression(node)) throw new Error(`${where} is not an array literal`);
  return node.elements.map((element) => {
    if (ts.isStringLiteral(element)) return element.text;
    throw new Error(`${where}: ${element.getText()} is not a string literal`);
  });
}

/** `const NAME = ["a", "b"]` or `const NAME = new Set(["a", "b"])` → ["a", "b"]. */
export function constStrings(file: string, name: string): string[] {
  const init = topLevelInitializer(file, name);
  if (ts.isNewExpression(init) && init.arguments?.[0]) return stringsOfArray(init.arguments[0], name);
  return stringsOfArray(init, `${file} ${name}`);
}

/** `const NAME = [{ id: "a", … }, …]` → ["a", …]. */
export function constObjectField(file: string, name: string, field: string): string[] {
  const init = topLevelInitializer(file, name);
  if (!ts.isArrayLiteralExpression(init)) throw new Error(`${file} ${name} is not an array literal`);
  return init.elements.map((element) => {
    const property =
      ts.isObjectLiteralExpression(element) &&
      element.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText() === field);
    if (property && ts.isPropertyAssignment(property) && ts.isStringLiteral(property.initializer))
      return property.initializer.text;
    throw new Error(`${file} ${name}: ${element.getText()} has no string ${field}`);
  });
}

/** `const NAME = { a: …, b: … }` → ["a", "b"]. */
export function constObjectKeys(file: string, name: string): string[] {
  const init = topLevelInitializer(file, name);
  if (!ts.isObjectLiteralExpression(init)) throw new Error(`${file} ${name} is not an object literal`);
  return init.properties.map((p) => {
    if (!p.name) throw new Error(`${file} ${name}: ${p.getText()} has no name`);
    return ts.isStringLiteral(p.name) ? p.name.text : p.name.getText();
  });
}

/** `const NAME = { a: "x", b: "y" }` → { a: "x", b: "y" }. */
export function constStringRecord(file: string, name: string): Record<string, string> {
  const init = topLevelInitializer(file, name);
  if (!ts.isObjectLiteralExpression(init)) throw new Error(`${file} ${name} is not an object literal`);
  const record: Record<string, string> = {};
  for (const p of init.properties) {
    if (!ts.isPropertyAssignment(p) || !ts.isStringLiteral(p.initializer))
      throw new Error(`${file} ${name}: ${p.getText()} is not a string property`);
    record[ts.isStringLiteral(p.name) ? p.name.text : p.name.getText()] = p.initializer.text;
  }
  return record;
}
