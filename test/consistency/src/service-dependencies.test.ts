// Services import packages, never another service: what two services share lives in packages/
// (contracts for what they exchange), and a test that needs another service running takes it
// from a harness under test/ (service-harness, signer-harness).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./literal-lists.js";

interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const services = readdirSync(path.join(ROOT, "services")).map((dir) => ({
  dir,
  pkg: JSON.parse(readFileSync(path.join(ROOT, "services", dir, "package.json"), "utf8")) as PackageJson,
}));
const serviceNames = new Set(services.map((s) => s.pkg.name));

describe("services depend on packages only", () => {
  it("knows the services", () => {
    expect([...serviceNames].sort()).toEqual([
      "@gateway/api",
      "@gateway/notifier",
      "@gateway/settlement",
      "@gateway/watcher",
    ]);
  });

  it.each(services.map((s) => [s.pkg.name, s.pkg] as const))("%s lists no other service", (_name, pkg) => {
    const listed = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];
    expect(listed.filter((dep) => serviceNames.has(dep) && dep !== pkg.name)).toEqual([]);
  });
});
