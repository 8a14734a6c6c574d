import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable, retryWhileUnavailable } from "./retry.js";

/** An error as postgres.js passes on its socket's: Node's code on a plain Error. */
function socketError(code: string): Error {
  return Object.assign(new Error(`write ${code}`), { code });
}

describe("what counts as the database being unavailable", () => {
  it("every way its connection can break, and no answer of the server's own", () => {
    for (const code of [
      "ECONNREFUSED",
      "ECONNRESET",
      "EPIPE",
      "ETIMEDOUT",
      "ERR_STREAM_DESTROYED",
      "CONNECTION_CLOSED",
      "57P01",
    ]) {
      expect([code, isDatabaseUnavailable(socketError(code))]).toEqual([code, true]);
    }
    for (const code of ["23505", "40001", "42P01", undefined]) {
      expect([code, isDatabaseUnavailable({ code })]).toEqual([code, false]);
    }
  });

  it("work whose write met a closed connection (EPIPE) is run again", async () => {
    let attempts = 0;
    const result = await retryWhileUnavailable(async () => {
      attempts++;
      if (attempts === 1) throw socketError("EPIPE");
      return "done";
    }, 5_000);
    expect(result).toBe("done");
    expect(attempts).toBe(2);
  });
});
