import { createHmac } from "node:crypto";
import fc from "fast-check";

/** Values the fuzzer mixes in because they are real: ids that exist, keys that work. */
export interface FuzzContext {
  /** Real ids of this merchant's and another merchant's objects. */
  ids: string[];
  testKey: string;
  liveKey: string;
  otherKey: string;
  jwt: string;
  otherJwt: string;
  jwtSecret: string;
  merchantId: string;
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString("base64url");

/** An HS256 JWT signed with `secret`, with whatever header and claims the caller forges. */
export function forgeJwt(header: object, claims: object, secret: string): string {
  const unsigned = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  return `${unsigned}.${createHmac("sha256", secret).update(unsigned).digest("base64url")}`;
}

/** Path segments: real ids, traversal, unicode, percent-encoding (valid and broken), huge. */
export function segment(ctx: FuzzContext): fc.Arbitrary<string> {
  const raw = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ctx.ids, "solana", "sui", "SOLANA", "ethereum") },
    fc.uuid(),
    fc.string({ maxLength: 40, unit: "binary" }),
    fc.string({ maxLength: 40, unit: "grapheme" }),
    fc.constantFrom(
      "..",
      "../..",
      "..%2F..%2Fetc%2Fpasswd",
      "%2e%2e%2f%2e%2e%2f",
      "%252e%252e%252f",
      "%00",
      "%E0%A4%A",
      "%",
      "%%",
      "%C0%AF",
      "%uFF0E",
      "' or 1=1 --",
      ["$", "{jndi:ldap://x}"].join(""),
      "__proto__",
      "constructor",
      "null",
      "undefined",
      "-1",
      "0",
      "1e309",
      "pay_",
      "pay_%00",
      "%20",
      "a;b",
      "a,b",
    ),
    // Long, but so that three of them plus headers stay under Node's 16 kB header limit (beyond
    // it Node itself answers 431; see the known findings in fuzz.test.ts).
    fc.integer({ min: 1_000, max: 3_500 }).map((n) => "a".repeat(n)),
  );
  return fc
    .tuple(raw, fc.boolean())
    .map(([s, encode]) => (encode ? encodeURIComponent(s) : toRequestPath(s)));
}

/** Node refuses request paths with characters outside printable ASCII; encode just those. */
export function toRequestPath(s: string): string {
  return s
    .replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c))
    .replace(/[?#]/g, (c) => encodeURIComponent(c));
}

const printable = fc.stringMatching(/^[\x20-\x7e]{0,120}$/);

export function apiKeyHeader(ctx: FuzzContext): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(ctx.testKey) },
    fc.constant(ctx.liveKey),
    fc.constant(ctx.otherKey),
    fc.constant(undefined),
    printable,
    fc.stringMatching(/^[0-9a-f]{40}$/).map((h) => `gw_test_${h}`),
    fc.stringMatching(/^[0-9a-zA-Z]{40}$/).map((h) => `gw_live_${h}`),
    fc.constant(`${ctx.testKey} `),
    fc.constant(ctx.testKey.toUpperCase()),
    fc.constant(ctx.testKey.slice(0, -1)),
  );
}

export function authorizationHeader(ctx: FuzzContext): fc.Arbitrary<string | undefined> {
  const now = Math.floor(Date.now() / 1000);
  const good = { sub: ctx.merchantId, iss: "gateway", aud: "gateway-dashboard", iat: now, exp: now + 3600 };
  const forged = fc.constantFrom(
    // alg none
    `${b64url('{"alg":"none","typ":"JWT"}')}.${b64url(JSON.stringify(good))}.`,
    // wrong secret
    forgeJwt({ alg: "HS256", typ: "JWT" }, good, "not-the-secret"),
    // right secret, expired / wrong audience / wrong issuer / no subject / numeric subject
    forgeJwt({ alg: "HS256" }, { ...good, exp: now - 10 }, ctx.jwtSecret),
    forgeJwt({ alg: "HS256" }, { ...good, aud: "someone-else" }, ctx.jwtSecret),
    forgeJwt({ alg: "HS256" }, { ...good, iss: "evil" }, ctx.jwtSecret),
    forgeJwt({ alg: "HS256" }, { ...good, sub: undefined }, ctx.jwtSecret),
    forgeJwt({ alg: "HS256" }, { ...good, sub: 42 }, ctx.jwtSecret),
    // right secret, a merchant that does not exist
    forgeJwt({ alg: "HS256" }, { ...good, sub: "mer_doesnotexist" }, ctx.jwtSecret),
    forgeJwt({ alg: "HS512" }, good, ctx.jwtSecret),
    // signature of a different token
    `${ctx.jwt.split(".").slice(0, 2).join(".")}.${ctx.otherJwt.split(".")[2]}`,
  );
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${ctx.jwt}`) },
    fc.constant(`Bearer ${ctx.otherJwt}`),
    fc.constant(undefined),
    forged.map((t) => `Bearer ${t}`),
    printable,
    printable.map((s) => `Bearer ${s}`),
    fc.constantFrom("Bearer", "Bearer ", "bearer  x.y.z", `Basic ${b64url("a:b")}`, `Bearer ${ctx.jwt}.`),
  );
}

export const idempotencyKey: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.uuid(),
  printable,
  fc.integer({ min: 200, max: 2000 }).map((n) => "k".repeat(n)),
);

// Mostly JSON, so most cases reach validation and the handlers rather than stopping at 415.
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant("application/json") },
  fc.constantFrom(
    "application/json; charset=utf-8",
    "application/json; charset=latin1",
    "application/json; charset=utf-16",
    "application/vnd.api+json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/octet-stream",
    "",
    undefined,
  ),
);

/** Field names the API's request bodies use, so random objects hit validation deeply. */
const FIELDS = [
  "amount",
  "currency",
  "chain",
  "coin",
  "redirect_url",
  "description",
  "expires_in",
  "metadata",
  "url",
  "events",
  "enabled",
  "email",
  "password",
  "business_name",
  "code",
  "address",
  "destination",
  "wallet_address",
  "mode",
  "frequency",
  "outcome",
  "amount_paid",
  "limit",
  "starting_after",
  "__proto__",
  "constructor",
];

const scalar = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.double(),
  fc.bigInt().map((b) => b.toString()),
  fc.string({ unit: "grapheme", maxLength: 50 }),
  fc.constantFrom(
    "1e5",
    "NaN",
    "Infinity",
    "-0",
    "0x10",
    " 5",
    "１２",
    "12.345678901234567890",
    "solana",
    "sui",
    "USD",
    "USDC",
    "SUI",
    "http://127.0.0.1/hook",
    "https://example.com/hook",
    "payment.completed",
    "a@b.test",
    "123456",
  ),
);

/** Raw request bodies: JSON of any shape, objects with the API's field names, bytes, huge. */
export const body: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.dictionary(fc.constantFrom(...FIELDS), scalar, { maxKeys: 6 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b)),
  fc.constantFrom(
    "{",
    "[]",
    "null",
    '{"a":1,"a":2}',
    '{"__proto__":{"admin":true}}',
    "\uFEFF{}",
    `{"amount":${"9".repeat(400)}}`,
    `${"[".repeat(5000)}${"]".repeat(5000)}`,
  ),
  fc.integer({ min: 100_000, max: 2_000_000 }).map((n) => JSON.stringify({ description: "x".repeat(n) })),
);

export const anyMethod = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE");
