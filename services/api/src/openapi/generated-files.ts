// The files generated from the OpenAPI document, and what each must hold now.
import { apiReferenceMarkdown } from "./reference-markdown.js";
import { sdkTypesSource } from "./sdk-types.js";

export const GENERATED_FILES: { url: URL; source: () => string }[] = [
  { url: new URL("../../../../docs/api-reference.md", import.meta.url), source: apiReferenceMarkdown },
  { url: new URL("../../../../packages/sdk/src/gen/types.ts", import.meta.url), source: sdkTypesSource },
];
