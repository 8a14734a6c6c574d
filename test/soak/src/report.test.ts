import { describe, expect, it } from "vitest";
import { judgedOn, postgresBackendsTable } from "./report.js";
import type { SoakResult } from "./run-soak.js";

describe("the soak report", () => {
  it("names the processes judged each way from the verdict's own checks", () => {
    const checks = [
      "memory api (heap after full collections)",
      "memory api (resident, recorded)",
      "memory nats-server",
      "memory postgres (outside shared memory)",
      "memory postgres (shared memory)",
      "memory postgres (PSS, recorded)",
      "memory signer (heap after full collections)",
      "memory sui-localnet (recorded, not judged)",
      "queue outboxBacklog",
    ].map((name) => ({ name, ok: true, detail: "" }));
    const result = { checks } as unknown as SoakResult;
    expect(judgedOn(result, " (heap after full collections)")).toBe("api, signer");
    expect(judgedOn(result, " (outside shared memory)")).toBe("postgres");
    expect(judgedOn(result, "")).toBe("nats-server");
    expect(judgedOn({ checks: [] } as unknown as SoakResult, "")).toBe("none");
  });

  it("tabulates PostgreSQL's backends by service, a dash where a service had none", () => {
    const MiB = 2 ** 20;
    const samples = [
      { t: 30, postgresBackends: { api: { connections: 21, bytes: 60 * MiB } } },
      {
        t: 60,
        postgresBackends: {
          api: { connections: 21, bytes: 65.25 * MiB },
          notifier: { connections: 4, bytes: 9 * MiB },
        },
      },
      { t: 90 },
    ];
    const result = { samples } as unknown as SoakResult;
    expect(postgresBackendsTable(result)).toEqual([
      "| t (s) | api | notifier |",
      "| - | - | - |",
      "| 30 | 60.0 (21) | - |",
      "| 60 | 65.3 (21) | 9.0 (4) |",
      "| 90 | - | - |",
    ]);
    expect(postgresBackendsTable({ samples: [] } as unknown as SoakResult)).toEqual([
      "PostgreSQL's backends were not read.",
    ]);
  });
});
