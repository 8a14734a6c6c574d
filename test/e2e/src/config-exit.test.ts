import { describe, expect, it } from "vitest";
import { startService } from "./processes.js";

describe("configuration at start-up", () => {
  it("stops a service whose variable is bad, naming the variable and not its value", async () => {
    const proc = startService("services/settlement", {
      DATABASE_URL: "mysql://secret-password@db/x",
      NATS_URL: "nats://127.0.0.1:4222",
      HEALTH_PORT: "70000",
    });
    const code = await new Promise<number | null>((resolve) => proc.child.once("exit", resolve));
    expect(code).toBe(78);
    expect(proc.output()).toContain("DATABASE_URL");
    expect(proc.output()).toContain("HEALTH_PORT");
    expect(proc.output()).not.toContain("secret-password");
  }, 60_000);
});
