import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./index.js";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, destination };
}

describe("createLogger", () => {
  it("writes a fixed message with fields and the service name", () => {
    const { lines, destination } = capture();
    createLogger({ name: "api", destination }).info({ paymentId: "p1" }, "payment created");
    expect(lines[0]).toMatchObject({
      service: "api",
      msg: "payment created",
      paymentId: "p1",
      level: "info",
    });
  });

  it("redacts secrets at the top level and nested", () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: "api", destination });
    log.info(
      {
        password: "hunter2",
        otp: "123456",
        headers: { authorization: "Bearer abc.def", "x-api-key": "gw_live_supersecret" },
        merchant: { signer: { seed: "abandon abandon" } },
        body: { apiKey: "gw_test_x", secret: "whsec_y" },
      },
      "request",
    );
    const text = JSON.stringify(lines[0]);
    for (const secret of ["hunter2", "123456", "abc.def", "supersecret", "abandon", "gw_test_x", "whsec_y"]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain("[redacted]");
  });

  it("keeps an error's code as errorCode, unless it looks like a one-time code", () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: "api", destination });
    log.warn({ err: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) }, "db");
    log.warn({ err: Object.assign(new Error("bad code"), { code: "482913" }) }, "otp");
    expect(lines[0]).toMatchObject({ err: { message: "read ECONNRESET", errorCode: "ECONNRESET" } });
    expect(JSON.stringify(lines[1])).not.toContain("482913");
  });

  it("honours the level", () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: "api", level: "warn", destination });
    log.info("hidden");
    log.warn("shown");
    expect(lines.map((l) => l.msg)).toEqual(["shown"]);
  });
});
