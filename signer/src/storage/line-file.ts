// Reading a file of lines a few MiB at a time, so a file is never held whole in memory: its size
// is bounded by the disk, not by the longest string V8 can make (512 MiB).
import { closeSync, openSync, readSync } from "node:fs";

/**
 * Hands each line of the file at `path`, from byte `from` on, to `visit` with the byte offset it
 * starts at, in order, without its newline; a last line without one too. `visit` returning false
 * stops the reading.
 */
export function forEachLine(
  path: string,
  visit: (line: string, offset: number) => boolean,
  chunkBytes = 4 << 20,
  from = 0,
): void {
  const fd = openSync(path, "r");
  try {
    let carried = Buffer.alloc(0);
    let offset = from; // in the file, of `carried`'s first byte
    for (let at = from; ; ) {
      const chunk = Buffer.allocUnsafe(chunkBytes);
      const count = readSync(fd, chunk, 0, chunkBytes, at);
      at += count;
      const data = Buffer.concat([carried, chunk.subarray(0, count)]);
      let start = 0;
      for (let end = data.indexOf(10); end >= 0; end = data.indexOf(10, start)) {
        if (!visit(data.toString("utf8", start, end), offset + start)) return;
        start = end + 1;
      }
      offset += start;
      carried = data.subarray(start);
      if (count === 0) break;
    }
    if (carried.length > 0) visit(carried.toString("utf8"), offset);
  } finally {
    closeSync(fd);
  }
}

/** The one line starting at byte `offset`. */
export function lineAt(path: string, offset: number): string {
  let found = "";
  forEachLine(
    path,
    (line) => {
      found = line;
      return false; // only the first
    },
    4096,
    offset,
  );
  return found;
}
