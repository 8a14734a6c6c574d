// A captured webhook must not be usable later or with another body: the merchant's verification
// helper refuses timestamps outside the 5-minute tolerance (both ways), any change to the body,
// another endpoint's secret, and headers spliced from other deliveries.
import {
  buildSignatureHeader,
  DEFAULT_TOLERANCE_SECONDS,
  verifyWebhook,
  WebhookVerificationError,
} from "@gateway/webhook-signature";
import { describe, expect, it } from "vitest";

const secret = "whsec_security_suite_secret_0123456789abcdef";
const body = JSON.stringify({
  id: "evt_1",
  type: "payment.completed",
  created: 1_700_000_000,
  data: { id: "pay_1", amount: "10.00" },
});
const t = 1_700_000_000;
const at = (seconds: number) => new Date(seconds * 1000);

function refusal(options: Parameters<typeof verifyWebhook>[0]): string {
  try {
    verifyWebhook(options);
    return "accepted";
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).code;
  }
}

describe("webhook replay and tampering", () => {
  const header = buildSignatureHeader(secret, t, body);

  it("accepts the genuine delivery inside the tolerance", () => {
    expect(DEFAULT_TOLERANCE_SECONDS).toBe(300);
    for (const skew of [0, 299, -299, 300]) {
      expect(refusal({ payload: body, header, secret, now: at(t + skew) }), `skew ${skew}`).toBe("accepted");
    }
  });

  it("refuses a replay outside the 5-minute tolerance, late or early", () => {
    for (const skew of [301, 3600, 86_400 * 30, -301, -86_400]) {
      expect(refusal({ payload: body, header, secret, now: at(t + skew) }), `skew ${skew}`).toBe(
        "timestamp_outside_tolerance",
      );
    }
  });

  it("refuses a replay whose timestamp was moved forward to look fresh", () => {
    const moved = header.replace(`t=${t}`, `t=${t + 3600}`);
    expect(refusal({ payload: body, header: moved, secret, now: at(t + 3600) })).toBe("signature_mismatch");
  });

  it("refuses any tampered body, even one byte or whitespace", () => {
    const tampered = [
      body.replace("10.00", "99.00"),
      body.replace("payment.completed", "payment.refunded"),
      `${body} `,
      body.replace("{", "{ "),
      JSON.stringify(JSON.parse(body)).replace("pay_1", "pay_2"),
      "",
    ];
    for (const payload of tampered) {
      expect(refusal({ payload, header, secret, now: at(t) }), payload).toBe("signature_mismatch");
    }
  });

  it("refuses another secret, a spliced signature and malformed headers", () => {
    expect(refusal({ payload: body, header, secret: `${secret}x`, now: at(t) })).toBe("signature_mismatch");
    const otherSig = buildSignatureHeader(secret, t, "{}").split("v1=")[1];
    expect(refusal({ payload: body, header: `t=${t},v1=${otherSig}`, secret, now: at(t) })).toBe(
      "signature_mismatch",
    );
    expect(refusal({ payload: body, header: undefined, secret, now: at(t) })).toBe("header_missing");
    for (const bad of ["v1=abc", `t=${t}`, "t=abc,v1=00", `t=${t},v0=${otherSig}`, "garbage"]) {
      expect(["header_malformed", "signature_mismatch"], bad).toContain(
        refusal({ payload: body, header: bad, secret, now: at(t) }),
      );
    }
  });
});
