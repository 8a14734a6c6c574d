// FieldMask support for the Sui gRPC API: callers choose which fields of a message they get back
// (paths in proto field names, e.g. `transactions.balance_changes`), with per-method defaults.
import type { FieldInfo, IMessageType } from "@protobuf-ts/runtime";

type MaskTree = Map<string, MaskTree | true>;

function buildTree(paths: readonly string[]): MaskTree {
  const root: MaskTree = new Map();
  for (const path of paths) {
    let node = root;
    const parts = path.split(".").filter((part) => part.length > 0);
    for (const [index, part] of parts.entries()) {
      const existing = node.get(part);
      if (existing === true) break;
      if (index === parts.length - 1) {
        node.set(part, true);
        break;
      }
      const child: MaskTree = existing ?? new Map();
      node.set(part, child);
      node = child;
    }
  }
  return root;
}

function project(type: IMessageType<object>, value: object, tree: MaskTree): object {
  const source = value as Record<string, unknown>;
  const out = type.create() as Record<string, unknown>;
  for (const field of type.fields) {
    const rule = tree.get(field.name);
    if (!rule) continue;
    if (field.oneof) {
      const group = source[field.oneof] as { oneofKind?: string } | undefined;
      if (group?.oneofKind === field.localName) out[field.oneof] = projectField(field, group, rule, true);
      continue;
    }
    const fieldValue = source[field.localName];
    if (fieldValue === undefined) continue;
    out[field.localName] = projectField(field, fieldValue, rule, false);
  }
  return out;
}

function projectField(field: FieldInfo, value: unknown, rule: MaskTree | true, inOneof: boolean): unknown {
  if (rule === true || field.kind !== "message") return value;
  const inner = field.T() as IMessageType<object>;
  if (inOneof) {
    const group = value as Record<string, unknown>;
    return {
      oneofKind: field.localName,
      [field.localName]: project(inner, group[field.localName] as object, rule),
    };
  }
  if (field.repeat) return (value as object[]).map((item) => project(inner, item, rule));
  return project(inner, value as object, rule);
}

/**
 * Keeps only the fields the mask names. With no mask (or an empty one) the method's default paths
 * apply, as on a Sui full node.
 */
export function applyReadMask<T extends object>(
  type: IMessageType<T>,
  value: T,
  paths: readonly string[] | undefined,
  defaults: readonly string[],
): T {
  const effective = paths && paths.length > 0 ? paths : defaults;
  if (effective.includes("*")) return value;
  return project(type as IMessageType<object>, value, buildTree(effective)) as T;
}
