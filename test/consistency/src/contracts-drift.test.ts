// One source of truth: every copy of a chain, coin, status or event-type list must equal the
// contracts' closed list. Adding a value to one place and not the others fails here, whether the
// copy is TypeScript (domain, ledger, SDK), SQL (check constraints), the OpenAPI document, or the
// front-end (its per-chain tables, and the lists in the bundles the browser gets).

import path from "node:path";
import {
  CHAINS,
  COINS,
  CURRENCIES,
  DELIVERY_STATUSES,
  EVENT_TYPES,
  MODES,
  PAYMENT_EVENT_TYPES,
  PAYMENT_STATUSES,
  PAYOUT_COINS,
  PAYOUT_EVENT_TYPES,
  PAYOUT_KINDS,
  PAYOUT_STATUSES,
  REFUND_REASONS,
  REFUND_STATUSES,
  SIMULATED_OUTCOMES,
  WEBHOOK_EVENT_TYPES,
} from "@gateway/contracts";
import * as domain from "@gateway/domain";
import { MANUAL_PAYOUT_NETWORK_FEE } from "@gateway/payouts";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FINAL_STATUSES, REFUND_REASON_LABELS } from "../../../packages/web-checkout/src/client/labels.js";
import { CHAIN_CHOICES } from "../../../packages/web-dashboard/src/client/labels.js";
import { bundleScript } from "../../../services/api/src/front-end/assets.js";
import { interfacePropertyUnion, ROOT, typeAliasUnion } from "./literal-lists.js";

const SDK = "packages/sdk/src/gen/types.ts";
const DASHBOARD = "packages/web-dashboard/src/client/main.ts";
const CHECKOUT = "packages/web-checkout/src/client/main.ts";

/** Same members, in any order, each once. */
function sameSet(copy: readonly string[], source: readonly string[]) {
  expect(new Set(copy).size, `${copy.join(", ")} repeats a value`).toBe(copy.length);
  expect([...copy].sort()).toEqual([...source].sort());
}

describe("events are named after the statuses they announce", () => {
  it("a payment event for every status but pending, and nothing else", () => {
    sameSet(
      PAYMENT_EVENT_TYPES,
      PAYMENT_STATUSES.filter((s) => s !== "pending").map((s) => `payment.${s}`),
    );
  });
  it("a payout event for every status but pending, and nothing else", () => {
    sameSet(
      PAYOUT_EVENT_TYPES,
      PAYOUT_STATUSES.filter((s) => s !== "pending").map((s) => `payout.${s}`),
    );
  });
  it("every event type is a payment's or a payout's", () => {
    sameSet(EVENT_TYPES, [...PAYMENT_EVENT_TYPES, ...PAYOUT_EVENT_TYPES, ...WEBHOOK_EVENT_TYPES]);
  });
});

describe("the domain and the ledger", () => {
  it("use the contracts' lists", () => {
    sameSet(domain.PAYMENT_STATUSES, PAYMENT_STATUSES);
    sameSet(domain.PAYMENT_EVENT_TYPES, PAYMENT_EVENT_TYPES);
    sameSet(domain.CHAINS, CHAINS);
    sameSet(domain.COINS, COINS);
    sameSet(domain.CURRENCIES, CURRENCIES);
  });
  it("have an entry for every chain and currency in their per-chain and per-currency tables", () => {
    sameSet(Object.keys(domain.CHAIN_COINS), CHAINS);
    sameSet(Object.keys(domain.PAYMENT_COINS), CURRENCIES);
    sameSet(Object.keys(domain.DECIMALS), CURRENCIES);
    sameSet(Object.keys(MANUAL_PAYOUT_NETWORK_FEE), CHAINS);
    for (const status of domain.TERMINAL_STATUSES) expect(PAYMENT_STATUSES).toContain(status);
  });
});

describe("the SDK's types (generated from the OpenAPI document; it ships without dependencies)", () => {
  it.each([
    ["Chain", CHAINS],
    ["Coin", COINS],
    ["Currency", CURRENCIES],
    ["PaymentStatus", PAYMENT_STATUSES],
    ["WebhookEventType", EVENT_TYPES],
    ["SimulatedOutcome", SIMULATED_OUTCOMES],
  ] as const)("%s", (name, list) => {
    sameSet(typeAliasUnion(SDK, name), list);
  });
  it("Refund's reason and status", () => {
    sameSet(interfacePropertyUnion(SDK, "Refund", "reason"), REFUND_REASONS);
    sameSet(interfacePropertyUnion(SDK, "Refund", "status"), REFUND_STATUSES);
  });
});

describe("the front-end", () => {
  // The pages import the contracts' lists; only their words for each value are their own.
  it("has words for every chain and refund reason, and final statuses that exist", () => {
    sameSet(Object.keys(REFUND_REASON_LABELS), REFUND_REASONS);
    sameSet(
      CHAIN_CHOICES.map((c) => c.id),
      CHAINS,
    );
    for (const status of FINAL_STATUSES) expect(PAYMENT_STATUSES).toContain(status);
  });

  /** The string literals of a bundle, as the browser gets it. */
  const literals = (entry: string) =>
    new Set(
      [
        ...bundleScript(path.join(ROOT, entry))
          .code.toString()
          .matchAll(/"([^"\\]*)"/g),
      ].map((m) => m[1]!),
    );

  it("the dashboard's bundle offers every status filter, event type, payout coin and chain", () => {
    const strings = literals(DASHBOARD);
    for (const value of [...PAYMENT_STATUSES, ...EVENT_TYPES, ...PAYOUT_COINS, ...CHAINS])
      expect(strings, `dashboard bundle lacks "${value}"`).toContain(value);
  });
  it("the checkout's bundle knows every simulated outcome", () => {
    const strings = literals(CHECKOUT);
    for (const outcome of SIMULATED_OUTCOMES) expect(strings).toContain(outcome);
  });
});

describe("the OpenAPI document", () => {
  type Schema = { enum?: string[]; $ref?: string; properties?: Record<string, Schema> };
  let schemas: Record<string, Schema>;
  beforeAll(async () => {
    const { openApiDocument } = await import("@gateway/api/openapi");
    schemas = openApiDocument("http://localhost").components.schemas as unknown as Record<string, Schema>;
  });
  const enumOf = (name: string, property?: string) => {
    const found = property ? schemas[name]?.properties?.[property] : schemas[name];
    // A shared list is a component of its own: follow the reference to it.
    const schema = found?.$ref ? schemas[found.$ref.split("/").pop()!] : found;
    expect(schema?.enum, `${name}${property ? `.${property}` : ""} has an enum`).toBeDefined();
    return schema!.enum!;
  };

  it("payments: chain, coin, currency, status, refunds, simulations", () => {
    sameSet(enumOf("Chain"), CHAINS);
    sameSet(enumOf("Coin"), COINS);
    sameSet(enumOf("PaymentStatus"), PAYMENT_STATUSES);
    sameSet(enumOf("Payment", "currency"), CURRENCIES);
    sameSet(enumOf("Refund", "reason"), REFUND_REASONS);
    sameSet(enumOf("Refund", "status"), REFUND_STATUSES);
    sameSet(enumOf("SimulateRequest", "outcome"), SIMULATED_OUTCOMES);
  });
  it("payouts: status, coin, kind, mode, chain", () => {
    sameSet(enumOf("Payout", "status"), PAYOUT_STATUSES);
    sameSet(enumOf("Payout", "coin"), PAYOUT_COINS);
    sameSet(enumOf("Payout", "kind"), PAYOUT_KINDS);
    sameSet(enumOf("Payout", "mode"), MODES);
    sameSet(enumOf("Payout", "chain"), CHAINS);
  });
});

describe("the database's check constraints", () => {
  let db: TestDatabase;
  /** `column in (…)` constraints, as PostgreSQL stores them: `(col = ANY (ARRAY['a'::text, …]))`. */
  let allowed: { table: string; column: string; values: string[] }[];
  beforeAll(async () => {
    db = await createTestDatabase();
    const rows = await db.sql<{ table: string; definition: string }[]>`
      select conrelid::regclass::text as table, pg_get_constraintdef(oid) as definition
      from pg_constraint where contype = 'c' and connamespace = 'public'::regnamespace`;
    allowed = rows.flatMap(({ table, definition }) => {
      const match = /^CHECK \(\((\w+) = ANY \(ARRAY\[(.*)\]\)\)\)$/.exec(definition);
      if (!match) return [];
      const values = [...match[2]!.matchAll(/'([^']*)'::text/g)].map((m) => m[1]!);
      return [{ table, column: match[1]!, values }];
    });
  });
  afterAll(() => db?.drop());

  const columns = (column: string, table?: string) => {
    const found = allowed.filter((c) => c.column === column && (table === undefined || c.table === table));
    expect(found.length, `a check constraint on ${table ?? "some table"}.${column}`).toBeGreaterThan(0);
    return found;
  };

  it("every chain and mode column allows exactly the contracts' chains and modes", () => {
    for (const { values } of columns("chain")) sameSet(values, CHAINS);
    for (const { values } of columns("mode")) sameSet(values, MODES);
  });
  it("payouts and webhook deliveries allow exactly the contracts' statuses, kinds and coins", () => {
    for (const { values } of columns("status", "payouts")) sameSet(values, PAYOUT_STATUSES);
    for (const { values } of columns("kind", "payouts")) sameSet(values, PAYOUT_KINDS);
    for (const { values } of columns("coin", "payouts")) sameSet(values, PAYOUT_COINS);
    for (const { values } of columns("status", "webhook_deliveries")) sameSet(values, DELIVERY_STATUSES);
  });
});
