import { describe, expect, it } from "vitest";
import { startService } from "./processes.js";

async function exitOf(dir: string, env: Record<string, string>) {
  const proc = startService(dir, env);
  const code = await new Promise<number | null>((resolve) => proc.child.once("exit", resolve));
  return { code, output: proc.output() };
}

describe("configuration at start-up", () => {
  it("stops a service whose variable is bad, naming the variable and not its value", async () => {
    const { code, output } = await exitOf("services/settlement", {
      DATABASE_URL: "mysql://secret-password@db/x",
      NATS_URL: "nats://127.0.0.1:4222",
      HEALTH_PORT: "70000",
    });
    expect(code).toBe(78);
    expect(output).toContain("DATABASE_URL");
    expect(output).toContain("HEALTH_PORT");
    expect(output).not.toContain("secret-password");
  }, 60_000);

  it.each<{ what: string; env: Record<string, string>; says: string }>([
    // An empty value counts as unset, as for every variable.
    {
      what: "WATCHER_CHAIN unset",
      env: { WATCHER_CHAIN: "" },
      says: "watcher: invalid configuration: WATCHER_CHAIN: ",
    },
    {
      what: "WATCHER_CHAIN no chain",
      env: { WATCHER_CHAIN: "ethereum" },
      says: "watcher: invalid configuration: WATCHER_CHAIN: ",
    },
    // The chain's own variables are read under its watcher's name, as when it was a service of its own.
    {
      what: "a bad variable of the chain's watcher",
      env: { WATCHER_CHAIN: "sui", HEALTH_PORT: "70000" },
      says: "watcher-sui: invalid configuration: HEALTH_PORT: ",
    },
  ])(
    "stops the watcher on $what, naming the variable",
    async ({ env, says }) => {
      const { code, output } = await exitOf("services/watcher", {
        DATABASE_URL: "postgres://127.0.0.1:1/x",
        ...env,
      });
      expect(code).toBe(78);
      expect(output).toContain(says);
    },
    60_000,
  );
});
