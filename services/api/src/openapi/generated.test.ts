import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { GENERATED_FILES } from "./generated-files.js";

it.each(GENERATED_FILES.map((f) => [fileURLToPath(f.url).split("/").slice(-3).join("/"), f] as const))(
  "%s is what the OpenAPI document generates now",
  (_name, { url, source }) => {
    expect(readFileSync(url, "utf8"), "run: pnpm --filter @gateway/api run generate").toBe(source());
  },
);
