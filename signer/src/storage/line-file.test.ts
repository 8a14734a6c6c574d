import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { forEachLine, lineAt } from "./line-file.js";

const dir = mkdtempSync(join(tmpdir(), "line-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** A fresh file in this test file's folder, removed with it. */
const newPath = () => join(dir, `lines-${++files}`);

function linesOf(contents: string, chunkBytes: number) {
  const path = newPath();
  writeFileSync(path, contents);
  const seen: [string, number][] = [];
  forEachLine(path, (line, offset) => seen.push([line, offset]) > 0, chunkBytes);
  return seen;
}

describe("forEachLine", () => {
  it("gives every line and its byte offset, whatever the chunks cut through", () => {
    // Lines longer than a chunk, empty lines, and characters of two and four bytes.
    const lines = ["first", "", "é".repeat(11), "a longer line than any chunk", "🙂 end"];
    const contents = `${lines.join("\n")}\n`;
    const expected = lines.map((line, i) => [
      line,
      Buffer.byteLength(
        lines
          .slice(0, i)
          .map((l) => `${l}\n`)
          .join(""),
      ),
    ]);
    for (const chunk of [1, 3, 7, 64, 4096]) expect(linesOf(contents, chunk)).toEqual(expected);
  });

  it("gives a last line without its newline, and stops when told", () => {
    expect(linesOf("a\nb", 2)).toEqual([
      ["a", 0],
      ["b", 2],
    ]);
    const path = newPath();
    writeFileSync(path, "a\nb\nc\n");
    const seen: string[] = [];
    forEachLine(path, (line) => seen.push(line) < 2);
    expect(seen).toEqual(["a", "b"]);
  });

  it("reads the one line at an offset, however long", () => {
    const path = newPath();
    const long = "é".repeat(5_000);
    writeFileSync(path, `first\n${long}\nlast`);
    expect(lineAt(path, 0)).toBe("first");
    expect(lineAt(path, 6)).toBe(long);
    expect(lineAt(path, 6 + Buffer.byteLength(long) + 1)).toBe("last");
  });
});
