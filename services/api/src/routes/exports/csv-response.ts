// Streams records to the response as CSV (csv-format.ts, csv-stringify), one chunk per cursor batch, pulling the
// next batch only as fast as the client reads.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Logger } from "@gateway/logging";
import type { Response } from "express";
import { ANSWERED } from "../../http/operation.js";
import { csvHeader, csvRecords } from "./csv-format.js";

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
  async function* chunks() {
    try {
      yield csvHeader(csv.columns);
      for (let batch = first; !batch.done; batch = await iterator.next()) {
        const text = csvRecords(csv.columns, batch.value.map(csv.toRecord));
        releaseRows(batch.value);
        yield text;
      }
    } finally {
      // A client that went away ends the loop early: the cursor is closed with it.
      await iterator.return?.();
    }
  }
  // One chunk waits while the response's buffer is full: the next batch is fetched after it.
  await pipeline(Readable.from(chunks(), { highWaterMark: 1 }), res).catch((err: unknown) => {
    // A client that hung up is no fault; anything else cut a download short and must be seen.
    if ((err as { code?: string }).code !== "ERR_STREAM_PREMATURE_CLOSE")
      log.error({ err, filename: csv.filename }, "CSV export cut short");
    if (!res.destroyed) res.destroy();
  });
  return ANSWERED;
}

/**
 * Empties a batch once written: V8 may pretenure the driver's batch arrays, and a spent one would
 * keep its rows alive through every young collection (docs/exports.md, "How the API keeps it small").
 */
function releaseRows(batch: unknown[]): void {
  batch.length = 0;
}
