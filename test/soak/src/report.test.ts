import { describe, expect, it } from "vitest";
import { judgedOn, postgresBackendsTable } from "./report.js";
import type { SoakResult } from "./run-soak.js";
import type { MemoryBasis } from "./verdict.js";

describe("the soak report", () => {
  it("names the processes judged each way from what the verdict's checks record", () => {
    const judged = (process: string, on: MemoryBasis) => ({ judged: { process, on } });
    const checks = [
      { name: "memory api (heap after full collections)", ...judged("api", "heap after full collections") },
      { name: "memory api (resident, recorded)" },
      { name: "memory nats-server", ...judged("nats-server", "pss") },
      { name: "memory postgres (outside shared memory)", ...judged("postgres", "outside shared memory") },
      { name: "memory postgres (shared memory)" },
      { name: "memory postgres (PSS, recorded)" },
      {
        name: "memory signer (heap after full collections)",
        ...judged("signer", "heap after full collections"),
      },
      { name: "memory sui-localnet (recorded, not judged)" },
      { name: "queue outboxBacklog" },
    ].map((check) => ({ ...check, ok: true, detail: "" }));
    const result = { checks } as unknown as SoakResult;
    expect(judgedOn(result, "heap after full collections")).toBe("api, signer");
    expect(judgedOn(result, "outside shared memory")).toBe("postgres");
    expect(judgedOn(result, "pss")).toBe("nats-server");
    expect(judgedOn({ checks: [] } as unknown as SoakResult, "pss")).toBe("none");
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
