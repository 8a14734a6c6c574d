// RFC 4180 lines: fields joined by commas, CRLF at the end, a field quoted (its quotes doubled)
// when it holds a comma, a quote or a line break. Everything else is written as it is.

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** The header row: the column names. */
export function csvHeader(columns: readonly string[]): string {
  return `${columns.map(csvField).join(",")}\r\n`;
}

/** One record's line, its fields in the columns' order; a field it lacks is empty. */
export function csvRecord(columns: readonly string[], record: Readonly<Record<string, string>>): string {
  let line = csvField(record[columns[0]!] ?? "");
  for (let i = 1; i < columns.length; i++) line += `,${csvField(record[columns[i]!] ?? "")}`;
  return `${line}\r\n`;
}
