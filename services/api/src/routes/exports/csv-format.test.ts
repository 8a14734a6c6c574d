import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { csvHeader, csvRecords } from "./csv-format.js";

describe("CSV lines (RFC 4180)", () => {
  it("quotes a field only when it holds a comma, a quote or a line break", () => {
    const field = (value: string) => csvRecords(["f"], [{ f: value }]).slice(0, -2);
    expect(field("plain text; and more")).toBe("plain text; and more");
    expect(field("")).toBe("");
    expect(field("a, b")).toBe('"a, b"');
    expect(field('Order "42"')).toBe('"Order ""42"""');
    expect(field("one\ntwo")).toBe('"one\ntwo"');
    expect(field("one\rtwo")).toBe('"one\rtwo"');
  });

  it("writes the columns in order, a missing field empty, and reads back the same", () => {
    const columns = ["id", "note", "amount"];
    const record = { amount: "1.50", id: "p1", note: 'a "quoted", multi\r\nline' };
    const text = csvHeader(columns) + csvRecords(columns, [record, { id: "p2" }]);
    expect(text.startsWith("id,note,amount\r\n")).toBe(true);
    expect(text.endsWith("p2,,\r\n")).toBe(true);
    expect(parse(text, { columns: true, record_delimiter: "\r\n", strict: true } as never)).toEqual([
      record,
      { id: "p2", note: "", amount: "" },
    ]);
  });
});
