import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  buildSignatureHeader,
  parseSignatureHeader,
  signPayload,
  verifyWebhook,
  WebhookVerificationError,
} from "./index.js";

// The worked example of docs/webhooks.md: same secret, timestamp and body, same header.
const EXAMPLE = {
  secret: "whsec_5Yq3mC8vT1nR7xK2pL9dW4hF6jB0sZ",
  timestamp: 1767225600,
  body: '{"id":"evt_3xR9kQ2mZ7vL1pT8nW5yB0","type":"payment.completed","created_at":"2026-01-01T00:00:00.000Z","is_test":true,"data":{"payment":{"id":"6f1c2a9e-4b7d-4e21-9a3f-0c5d8e7b1a24","status":"completed"}}}',
  header: "t=1767225600,v1=71485b1d6b828361621c189016d63ec4e75c49672e288c53fbda002ee21c7b43",
};
const at = (seconds: number) => new Date(seconds * 1000);

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).code;
  }
  throw new Error("expected a WebhookVerificationError");
}

describe("worked example (docs/webhooks.md)", () => {
  it("produces the documented header", () => {
    expect(buildSignatureHeader(EXAMPLE.secret, EXAMPLE.timestamp, EXAMPLE.body)).toBe(EXAMPLE.header);
  });

  it("is the example the document shows", () => {
    const docs = readFileSync(
      path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../docs/webhooks.md"),
      "utf8",
    );
    for (const value of [EXAMPLE.secret, String(EXAMPLE.timestamp), EXAMPLE.body, EXAMPLE.header]) {
      expect(docs).toContain(value);
    }
  });

  it("verifies within the tolerance and returns the parsed event", () => {
    const event = verifyWebhook({
      payload: EXAMPLE.body,
      header: EXAMPLE.header,
      secret: EXAMPLE.secret,
      now: at(EXAMPLE.timestamp + 299),
    });
    expect(event).toMatchObject({
      id: "evt_3xR9kQ2mZ7vL1pT8nW5yB0",
      type: "payment.completed",
      is_test: true,
    });
  });
});

describe("verifyWebhook refuses", () => {
  const base = {
    payload: EXAMPLE.body,
    header: EXAMPLE.header,
    secret: EXAMPLE.secret,
    now: at(EXAMPLE.timestamp),
  };

  it("a tampered body, even by one byte or re-serialised", () => {
    expect(
      refusal(() => verifyWebhook({ ...base, payload: EXAMPLE.body.replace("completed", "Completed") })),
    ).toBe("signature_mismatch");
    const reformatted = JSON.stringify(JSON.parse(EXAMPLE.body), null, 1);
    expect(refusal(() => verifyWebhook({ ...base, payload: reformatted }))).toBe("signature_mismatch");
  });

  it("a timestamp older (or newer) than the tolerance", () => {
    expect(refusal(() => verifyWebhook({ ...base, now: at(EXAMPLE.timestamp + 301) }))).toBe(
      "timestamp_outside_tolerance",
    );
    expect(refusal(() => verifyWebhook({ ...base, now: at(EXAMPLE.timestamp - 301) }))).toBe(
      "timestamp_outside_tolerance",
    );
    expect(() =>
      verifyWebhook({ ...base, now: at(EXAMPLE.timestamp + 3600), toleranceSeconds: 3600 }),
    ).not.toThrow();
  });

  it("a header whose timestamp was changed to look fresh", () => {
    const replayed = EXAMPLE.header.replace("t=1767225600", "t=1767229200");
    expect(refusal(() => verifyWebhook({ ...base, header: replayed, now: at(1767229200) }))).toBe(
      "signature_mismatch",
    );
  });

  it("another endpoint's secret", () => {
    expect(refusal(() => verifyWebhook({ ...base, secret: "whsec_other" }))).toBe("signature_mismatch");
  });

  it("a missing or malformed header", () => {
    expect(refusal(() => verifyWebhook({ ...base, header: undefined }))).toBe("header_missing");
    expect(refusal(() => verifyWebhook({ ...base, header: "" }))).toBe("header_missing");
    expect(refusal(() => verifyWebhook({ ...base, header: "v1=abc" }))).toBe("header_malformed");
    expect(refusal(() => verifyWebhook({ ...base, header: "t=now,v1=abc" }))).toBe("header_malformed");
    expect(refusal(() => verifyWebhook({ ...base, header: "t=1767225600,v1=zz" }))).toBe(
      "signature_mismatch",
    );
    expect(refusal(() => verifyWebhook({ ...base, header: `t=1767225600,v1=${"0".repeat(64)}` }))).toBe(
      "signature_mismatch",
    );
  });

  it("a signed body that is not JSON", () => {
    const header = buildSignatureHeader(EXAMPLE.secret, EXAMPLE.timestamp, "not json");
    expect(refusal(() => verifyWebhook({ ...base, payload: "not json", header }))).toBe("payload_invalid");
  });
});

describe("verifyWebhook accepts", () => {
  it("the raw body as a Buffer, and the header as the array some frameworks give", () => {
    const event = verifyWebhook({
      payload: Buffer.from(EXAMPLE.body, "utf8"),
      header: [EXAMPLE.header],
      secret: EXAMPLE.secret,
      now: at(EXAMPLE.timestamp),
    });
    expect(event.id).toBe("evt_3xR9kQ2mZ7vL1pT8nW5yB0");
  });

  it("any of several v1 signatures (secret rotation), ignoring unknown schemes", () => {
    const good = signPayload(EXAMPLE.secret, EXAMPLE.timestamp, EXAMPLE.body);
    const header = `t=${EXAMPLE.timestamp},v0=legacy,v1=${"a".repeat(64)},v1=${good}`;
    expect(parseSignatureHeader(header).signatures).toHaveLength(2);
    expect(() =>
      verifyWebhook({ payload: EXAMPLE.body, header, secret: EXAMPLE.secret, now: at(EXAMPLE.timestamp) }),
    ).not.toThrow();
  });

  it("non-ASCII bodies, signed as UTF-8 bytes", () => {
    const body = JSON.stringify({ id: "evt_x", type: "payment.completed", data: { note: "café ☕" } });
    const header = buildSignatureHeader(EXAMPLE.secret, 1000, body);
    expect(verifyWebhook({ payload: body, header, secret: EXAMPLE.secret, now: at(1000) }).data).toEqual({
      note: "café ☕",
    });
  });
});
