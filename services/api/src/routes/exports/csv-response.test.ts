import http from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger } from "@gateway/logging";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { sendCsv } from "./csv-response.js";

let close: (() => void) | undefined;
afterEach(() => close?.());

/** An app whose one route streams `batches` as CSV; the base URL to fetch it from. */
async function serve(batches: Iterable<{ n: string }[]>): Promise<string> {
  const app = express();
  const log = createLogger({ name: "csv-response-test", level: "silent" });
  app.get("/rows.csv", async (_req, res) => {
    async function* source() {
      yield* batches;
    }
    await sendCsv(res, log, { filename: "rows.csv", columns: ["n"], batches: source(), toRecord: (r) => r });
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  close = () => server.close();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("sendCsv", () => {
  it("writes every batch in order and leaves each batch array empty, holding no row", async () => {
    const batches = Array.from({ length: 30 }, (_, b) =>
      Array.from({ length: 100 }, (_, i) => ({ n: String(b * 100 + i) })),
    );
    const res = await fetch(`${await serve(batches)}/rows.csv`);
    const lines = (await res.text()).split("\r\n");
    expect(lines[0]).toBe("n");
    expect(lines.slice(1, -1)).toEqual(Array.from({ length: 3000 }, (_, i) => String(i)));
    expect(lines.at(-1)).toBe("");
    expect(batches.map((b) => b.length)).toEqual(batches.map(() => 0));
  });

  it("an empty source is the header row alone", async () => {
    const res = await fetch(`${await serve([])}/rows.csv`);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await res.text()).toBe("n\r\n");
  });

  it("reads no further ahead than the client: a client that stops reading stops the source", async () => {
    const total = 2000;
    let pulled = 0;
    function* batches() {
      // 100 rows of 200 bytes a batch: 40 MB in all, far past what sockets buffer.
      for (; pulled < total; ) {
        pulled++;
        yield Array.from({ length: 100 }, () => ({ n: "x".repeat(199) }));
      }
    }
    const base = await serve(batches());
    const response = await new Promise<http.IncomingMessage>((resolve) =>
      http.get(`${base}/rows.csv`, resolve),
    );
    response.pause();
    await new Promise((r) => setTimeout(r, 500));
    const whilePaused = pulled;
    expect(whilePaused).toBeGreaterThan(0);
    expect(whilePaused).toBeLessThan(total / 2);
    let bytes = 0;
    response.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    response.resume();
    await new Promise((resolve) => response.once("end", resolve));
    expect(pulled).toBe(total);
    expect(bytes).toBe("n\r\n".length + total * 100 * 201);
  });
});
