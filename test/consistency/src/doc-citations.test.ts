// Comments point to documents in the repo: a comment that cites a `.md` file which is not here
// (the product brief and the seed spec were never committed) sends the reader nowhere. Every
// comment of every tracked source file is read with TypeScript's scanner, so strings and code
// that merely look like comments do not count.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "./literal-lists.js";
import { trackedFiles } from "./repo-files.js";

const SOURCE = /\.(ts|tsx|js|mjs|cjs)$/;
/** A file name ending in .md, with an optional path before it: `docs/webhooks.md`, `README.md`. */
const CITED_MARKDOWN = /(?:[\w.-]+\/)*[\w.-]+\.md\b/g;

/** The text of every comment in a TypeScript or JavaScript source, with its line. */
export function commentsOf(text: string): { line: number; text: string }[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const comments: { line: number; text: string }[] = [];
  let token = scanner.scan();
  while (token !== ts.SyntaxKind.EndOfFileToken) {
    if (token === ts.SyntaxKind.SingleLineCommentTrivia || token === ts.SyntaxKind.MultiLineCommentTrivia) {
      const start = scanner.getTokenStart();
      comments.push({ line: text.slice(0, start).split("\n").length, text: scanner.getTokenText() });
    }
    // A `/` may start a regular expression; the scanner needs to be told, as the parser would.
    if (token === ts.SyntaxKind.SlashToken || token === ts.SyntaxKind.SlashEqualsToken) {
      const previous = text.slice(0, scanner.getTokenStart()).trimEnd().at(-1) ?? "";
      if (!/[\w)\]}]/.test(previous)) token = scanner.reScanSlashToken();
    }
    token = scanner.scan();
  }
  return comments;
}

/** Where a cited document may be: beside the citing file, from the repo's root, or (a bare name) anywhere. */
function citationExists(citing: string, cited: string, markdownFiles: string[]): boolean {
  if (!cited.includes("/")) return markdownFiles.some((file) => path.basename(file) === cited);
  return [path.join(path.dirname(citing), cited), cited].some((candidate) =>
    markdownFiles.includes(path.normalize(candidate)),
  );
}

export function missingCitations(files: { path: string; text: string }[], markdownFiles: string[]): string[] {
  const missing: string[] = [];
  for (const file of files) {
    for (const comment of commentsOf(file.text)) {
      // A document on the web is cited by its URL; only paths into this repo are checked.
      const withoutUrls = comment.text.replace(/\S*:\/\/\S*/g, "");
      for (const [cited] of withoutUrls.matchAll(CITED_MARKDOWN)) {
        if (!citationExists(file.path, cited, markdownFiles))
          missing.push(`${file.path}:${comment.line} cites ${cited}`);
      }
      if (/\bseed (section|§)/i.test(comment.text))
        missing.push(`${file.path}:${comment.line} cites the seed spec, which is not in the repo`);
    }
  }
  return missing;
}

describe("comments cite documents that are in the repo", () => {
  it("finds a citation of a missing document, and accepts present ones, beside or from the root", () => {
    const source = [
      "// See docs/webhooks.md and README.md.",
      'const url = "https://example.com/PRODUCT.md"; // a string is not a comment',
      "const re = /\\/\\/ not a comment \\.md/;",
      "/** As PRODUCT.md says; seed section 4.1. */",
      "// ./notes.md lives beside this file; https://github.com/a/b/blob/main/SPEC.md is on the web",
    ].join("\n");
    expect(
      missingCitations(
        [{ path: "services/x/src/a.ts", text: source }],
        ["docs/webhooks.md", "README.md", "services/x/src/notes.md"],
      ),
    ).toEqual([
      "services/x/src/a.ts:4 cites PRODUCT.md",
      "services/x/src/a.ts:4 cites the seed spec, which is not in the repo",
    ]);
  });

  it("every comment in the repository's sources", () => {
    const files = trackedFiles();
    const markdown = files.filter((file) => file.endsWith(".md"));
    const sources = files
      .filter((file) => SOURCE.test(file) && !file.includes("node_modules/") && !file.includes("/gen/"))
      .map((file) => ({ path: file, text: readFileSync(path.join(ROOT, file), "utf8") }));
    expect(sources.length).toBeGreaterThan(100);
    expect(missingCitations(sources, markdown)).toEqual([]);
  });
});
