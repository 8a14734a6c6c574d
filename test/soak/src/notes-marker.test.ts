import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { NOTES_MARKER, writeKeepingNotes } from "../../../bench/notes-marker.js";

// recordSoak and the benches' --record rewrite their results file through this: a recording must
// not wipe the hand-written history of every run below the marker.
const dir = mkdtempSync(path.join(tmpdir(), "gw-notes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("rewrites a results file whole and keeps what follows its notes marker", () => {
  const file = path.join(dir, "RESULTS-x.md");
  writeKeepingNotes(file, "# run 1\n");
  expect(readFileSync(file, "utf8")).toBe("# run 1\n");

  writeFileSync(file, `# run 1\n${NOTES_MARKER}\n## Every run\n| 14:46 | failed |\n`);
  writeKeepingNotes(file, "# run 2\n");
  expect(readFileSync(file, "utf8")).toBe(`# run 2\n${NOTES_MARKER}\n## Every run\n| 14:46 | failed |\n`);
});
