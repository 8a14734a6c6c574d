// The build step makes services that run without TypeScript: the API's bundle migrates a
// database, starts against PostgreSQL and NATS, answers /readyz and serves the front-end it
// bundles at start-up from the sources it finds through the rewritten import.meta; the watcher's
// one bundle runs the chain WATCHER_CHAIN names.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { createTestBus, createTestDatabase, type TestBus, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServices } from "../../../scripts/build/build-services.js";
import { freePort, ROOT, type ServiceProcess, spawnService, waitForReady } from "./processes.js";

const execFileAsync = promisify(execFile);
const apiDir = path.join(ROOT, "services/api");
const watcherDir = path.join(ROOT, "services/watcher");
let db: TestDatabase;
let bus: TestBus;
let api: ServiceProcess | undefined;
let watcher: ServiceProcess | undefined;
let sui: SuiLocalnet | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  bus = await createTestBus();
  await buildServices(ROOT, ["@gateway/api", "@gateway/watcher"]);
});
afterAll(async () => {
  await api?.stop("SIGKILL");
  await watcher?.stop("SIGKILL");
  await sui?.close();
  await bus.cleanup();
  await db.drop();
});

/** The bundle alone: node with no loader, as the image's entry point runs it. */
function startCompiled(env: Record<string, string>, dir = apiDir): ServiceProcess {
  return spawnService(["--enable-source-maps", "dist/main.js"], dir, {
    PATH: process.env.PATH ?? "",
    LOG_LEVEL: "warn",
    ...env,
  });
}

describe("compiled services", () => {
  it("bundle no TypeScript loader and import only native packages at run time", () => {
    const bundle = readFileSync(path.join(apiDir, "dist/main.js"), "utf8");
    expect(bundle).not.toMatch(/from "tsx/);
    const bareImports = [...bundle.matchAll(/^import .* from "([^".][^"]*)";$/gm)].map((m) => m[1]);
    const packages = new Set(
      bareImports.filter((name) => name && !name.startsWith("node:") && !builtinModules.includes(name)),
    );
    expect([...packages].sort()).toEqual(["@node-rs/argon2", "esbuild"]);
  });

  it("migrate finds the migrations from the bundle", async () => {
    const { stdout } = await execFileAsync(process.execPath, ["dist/migrate.js"], {
      cwd: apiDir,
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: db.url },
    });
    // The test database is migrated already: every migration was read and found applied.
    expect(stdout).toContain("schema up to date");
  });

  it("the API starts from its bundle, answers /readyz and serves the pages it bundles", async () => {
    const port = await freePort();
    api = startCompiled({
      DATABASE_URL: db.url,
      NATS_URL: bus.natsUrl,
      BUS_PREFIX: bus.prefix,
      PORT: String(port),
      JWT_SECRET: "compiled-services-test-secret-of-40-chars",
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
      PRICE_SOURCES: "pyth,coinbase",
      PRICE_PYTH_URL: "http://127.0.0.1:9/pyth",
      PRICE_COINBASE_URL: "http://127.0.0.1:9/coinbase",
    });
    await waitForReady(`http://127.0.0.1:${port}/readyz`, api, 45_000);
    const page = await (await fetch(`http://127.0.0.1:${port}/dashboard`)).text();
    const script = page.match(/\/dashboard\/assets\/dashboard\.js\?v=[0-9a-f]{12}/)?.[0];
    expect(script, page).toBeDefined();
    const asset = await fetch(`http://127.0.0.1:${port}${script}`);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(1000);
  }, 60_000);

  it("the watcher's bundle refuses a WATCHER_CHAIN that is no chain, naming the variable", async () => {
    const proc = startCompiled({ WATCHER_CHAIN: "ethereum" }, watcherDir);
    const code = await new Promise<number | null>((resolve) => proc.child.once("exit", resolve));
    expect(code).toBe(78);
    expect(proc.output()).toContain("watcher: invalid configuration: WATCHER_CHAIN: ");
  }, 30_000);

  it("the watcher's bundle runs the chain WATCHER_CHAIN names, under that chain's name", async () => {
    sui = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 100 });
    const port = await freePort();
    watcher = startCompiled(
      {
        WATCHER_CHAIN: "sui",
        DATABASE_URL: db.url,
        NATS_URL: bus.natsUrl,
        BUS_PREFIX: bus.prefix,
        HEALTH_PORT: String(port),
        SUI_GRPC_URL: sui.url,
        SUI_NETWORK: "localnet",
        SUI_CHAIN_ID: sui.info().chainId,
        SUI_USDC_COIN_TYPE: sui.coinType("USDC"),
        SUI_USDT_COIN_TYPE: sui.coinType("USDT"),
      },
      watcherDir,
    );
    await waitForReady(`http://127.0.0.1:${port}/readyz`, watcher, 45_000);
    expect(await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()).toMatchObject({ sui: "ok" });
    expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toContain('service="watcher-sui"');
  }, 60_000);
});
