// Writes docs/api-reference.md from the OpenAPI document.
import { writeFileSync } from "node:fs";
import { apiReferenceMarkdown } from "./reference-markdown.js";

writeFileSync(new URL("../../../../docs/api-reference.md", import.meta.url), apiReferenceMarkdown());
