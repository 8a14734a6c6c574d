// Streams records to the response as CSV (RFC 4180: CRLF line ends, a header row, quotes where a
// field needs them), pulling the next batch of rows only as fast as the client reads.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Logger } from "@gateway/logging";
import { stringify } from "csv-stringify";
import type { Response } from "express";
import { ANSWERED } from "../../http/operation.js";

export interface CsvSource<Row> {
  columns: readonly string[];
  batches: AsyncIterable<Row[]>;
  toRecord(row: Row): Record<string, string>;
}

export interface CsvExport<Row> extends CsvSource<Row> {
  filename: string;
}

/**
 * The first batch is read before anything is sent, so a query that fails at once (a database
 * restarting) is still answered with the documented error; a failure later can only cut the
 * stream, and the client sees a truncated download rather than a complete-looking file.
 */
export async function sendCsv<Row>(
  res: Response,
  log: Logger,
  csv: CsvExport<Row>,
): Promise<typeof ANSWERED> {
  const iterator = csv.batches[Symbol.asyncIterator]();
  const first = await iterator.next();
  res.status(200);
  res.setHeader("Content-Type", "text/csv; charset=utf-8");
  res.setHeader("Content-Disposition", `attachment; filename="${csv.filename}"`);
  async function* records() {
    try {
      if (first.done) return;
      for (const row of first.value) yield csv.toRecord(row);
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        for (const row of next.value) yield csv.toRecord(row);
      }
    } finally {
      // A client that went away ends the loop early: the cursor is closed with it.
      await iterator.return?.();
    }
  }
  const writer = stringify({ header: true, columns: [...csv.columns], record_delimiter: "\r\n" });
  await pipeline(Readable.from(records()), writer, res).catch((err: unknown) => {
    // A client that hung up is no fault; anything else cut a download short and must be seen.
    if ((err as { code?: string }).code !== "ERR_STREAM_PREMATURE_CLOSE")
      log.error({ err, filename: csv.filename }, "CSV export cut short");
    if (!res.destroyed) res.destroy();
  });
  return ANSWERED;
}
