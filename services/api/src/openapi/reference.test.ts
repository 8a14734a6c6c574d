import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { apiReferenceMarkdown } from "./reference-markdown.js";

it("docs/api-reference.md is generated from the current OpenAPI document", () => {
  const committed = readFileSync(new URL("../../../../docs/api-reference.md", import.meta.url), "utf8");
  expect(committed, "run: pnpm --filter @gateway/api run reference").toBe(apiReferenceMarkdown());
});
