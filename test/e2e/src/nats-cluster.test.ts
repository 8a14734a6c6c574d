// Issue 11's multi-node test on loopback: a 3-node NATS JetStream cluster with streams at 3
// replicas, 2 API and 2 settlement processes. Work spreads over the replicas, and a NATS node
// killed mid-stream loses no message.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestMerchant } from "@gateway/api/testing";
import { freePort, type LocalNats, startNats } from "@gateway/local-infra";
import { createTestDatabase, type TestDatabase, waitFor } from "@gateway/testkit";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServiceProcess, startService, waitForReady } from "./processes.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "gw-nats-cluster-"));
const nodes: LocalNats[] = [];
const procs: ServiceProcess[] = [];
const apis: string[] = [];
let db: TestDatabase;
let natsUrl = "";
const prefix = `cl${Date.now().toString(36)}`;

beforeAll(async () => {
  const clientPorts = [await freePort(), await freePort(), await freePort()];
  const clusterPorts = [await freePort(), await freePort(), await freePort()];
  for (let i = 0; i < 3; i++) {
    const routes = clusterPorts
      .filter((_, j) => j !== i)
      .map((p) => `nats://127.0.0.1:${p}`)
      .join(",");
    nodes.push(
      await startNats({
        storeDir: path.join(dir, `n${i}`),
        port: clientPorts[i]!,
        args: [
          "--server_name",
          `n${i}`,
          "--cluster_name",
          "gw",
          "--cluster",
          `nats://127.0.0.1:${clusterPorts[i]}`,
          "--routes",
          routes,
        ],
      }),
    );
  }
  natsUrl = nodes.map((n) => n.url).join(",");
  // JetStream answers once the cluster has elected its meta leader.
  const nc = await connect({ servers: nodes.map((n) => n.url) });
  await waitFor(
    async () => (await (await jetstreamManager(nc, { timeout: 2_000 })).getAccountInfo()) !== undefined,
    {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: "JetStream cluster",
    },
  );
  await nc.close();

  db = await createTestDatabase();
  const env = {
    DATABASE_URL: db.url,
    NATS_URL: natsUrl,
    BUS_PREFIX: prefix,
    BUS_STREAM_REPLICAS: "3",
    LOG_LEVEL: "info",
  };
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const api = startService("services/api", {
      ...env,
      PORT: String(port),
      JWT_SECRET: "cluster-test-secret-cluster-test-secret-00",
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 2).toString("base64"),
      RATE_LIMIT_PER_MINUTE: "100000",
    });
    procs.push(api);
    apis.push(`http://127.0.0.1:${port}`);
    await waitForReady(`http://127.0.0.1:${port}/readyz`, api, 60_000);
  }
  for (let i = 0; i < 2; i++) {
    const health = await freePort();
    const settlement = startService("services/settlement", {
      ...env,
      HEALTH_PORT: String(health),
      EXPIRY_POLL_MS: "200",
    });
    procs.push(settlement);
    await waitForReady(`http://127.0.0.1:${health}/readyz`, settlement, 60_000);
  }
}, 180_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop("SIGKILL")));
  await Promise.all(nodes.map((n) => n.stop("SIGKILL")));
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe("on a 3-node NATS cluster", () => {
  it("spreads work over 2 settlement replicas and loses nothing when a NATS node dies", async () => {
    const merchant = await createTestMerchant(db.sql);
    const post = async (
      api: string,
      pathname: string,
      body: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await fetch(`${api}${pathname}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { id: string } };
    };
    const ids: string[] = [];
    const total = 40;
    let killedAt = 0;
    for (let i = 0; i < total; i++) {
      const api = apis[i % 2]!;
      const payment = await post(
        api,
        "/payments",
        { amount: 10, currency: "USD" },
        { "x-api-key": merchant.testKey },
      );
      expect(payment.status).toBe(201);
      ids.push(payment.body.id);
      const sim = await post(apis[(i + 1) % 2]!, `/payments/checkout/${payment.body.id}/simulate`, {
        outcome: "paid",
      });
      expect(sim.status).toBe(202);
      if (i === total / 2) {
        // Kill the first node outright, mid-stream.
        await nodes[0]!.stop("SIGKILL");
        killedAt = Date.now();
      }
    }
    try {
      await waitFor(
        async () => {
          const [row] = await db.sql<
            { n: bigint }[]
          >`select count(*) as n from payments where status = 'completed'`;
          return row?.n === BigInt(total);
        },
        { timeoutMs: 60_000, what: "every payment completed" },
      );
    } catch (err) {
      const counts = await db.sql`select status, count(*)::int as n from payments group by status`;
      const outbox =
        await db.sql`select (select count(*) from outbox_pending)::int as pending, count(*)::int as total from outbox`;
      const tail = (p: ServiceProcess) => p.output().split("\n").slice(-15).join("\n");
      throw new Error(
        `${JSON.stringify(counts)} outbox ${JSON.stringify(outbox)}\n${procs.map(tail).join("\n----\n")}`,
        { cause: err },
      );
    }
    const recovered = Date.now() - killedAt;
    // Each completed exactly once.
    const events = await db.sql<{ n: bigint }[]>`
      select count(*) as n from events where type = 'payment.completed' group by payment_id having count(*) <> 1`;
    expect(events).toEqual([]);
    const [eventCount] = await db.sql<
      { n: bigint }[]
    >`select count(*) as n from events where type = 'payment.completed'`;
    expect(eventCount?.n).toBe(BigInt(total));
    // Both settlement replicas did part of the work. A replica logs a command after its batch
    // commits, so the last batch's lines can reach us a moment after the rows do.
    const appliedPerReplica = () =>
      procs.slice(2).map((p) => (p.output().match(/payment command applied/g) ?? []).length);
    await waitFor(async () => appliedPerReplica().reduce((a, b) => a + b, 0) >= total, {
      timeoutMs: 10_000,
      what: "every applied command logged",
    }).catch(() => undefined);
    const applied = appliedPerReplica();
    expect(applied[0]! + applied[1]!).toBe(total);
    expect(
      applied.every((n) => n > 0),
      `work per replica: ${applied.join(", ")}`,
    ).toBe(true);
    console.log(
      `nats-cluster: ${total} payments, node killed after ${total / 2}; all completed ${recovered} ms after the kill; work per settlement replica ${applied.join("/")}`,
    );
  }, 120_000);
});
