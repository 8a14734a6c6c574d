// A results file is rewritten whole by each recording; what follows this marker in it is written
// by hand (every run of a day, what changed between them) and is kept.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

export const NOTES_MARKER = "<!-- notes: kept by --record -->";

/** Writes `text` to `target`, keeping whatever follows the notes marker in the file there now. */
export function writeKeepingNotes(target: string, text: string): void {
  const notes = existsSync(target) ? readFileSync(target, "utf8").split(NOTES_MARKER)[1] : undefined;
  writeFileSync(target, `${text}${notes === undefined ? "" : NOTES_MARKER + notes}`);
}
