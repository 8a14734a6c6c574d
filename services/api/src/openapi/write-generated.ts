// Writes docs/api-reference.md and the SDK's types from the OpenAPI document.
import { mkdirSync, writeFileSync } from "node:fs";
import { GENERATED_FILES } from "./generated-files.js";

for (const { url, source } of GENERATED_FILES) {
  mkdirSync(new URL(".", url), { recursive: true });
  writeFileSync(url, source());
}
