// RFC 4180 text through csv-stringify: CRLF line ends, and a field quoted (its quotes doubled)
// when it holds a comma, a quote or a line break. A bare CR or LF is not the record delimiter, so
// csv-stringify would leave it unquoted: `quoted_match` quotes it too.
import { stringify } from "csv-stringify/sync";

const LINE_BREAK = /[\r\n]/;

/** The header row: the column names. */
export function csvHeader(columns: readonly string[]): string {
  return stringify([[...columns]], { record_delimiter: "\r\n", quoted_match: LINE_BREAK });
}

/** One batch's lines, each record's fields in the columns' order; a field it lacks is empty. */
export function csvRecords(columns: readonly string[], records: readonly Record<string, string>[]): string {
  return stringify(records as Record<string, string>[], {
    columns: columns.map((key) => ({ key })),
    record_delimiter: "\r\n",
    quoted_match: LINE_BREAK,
  });
}
