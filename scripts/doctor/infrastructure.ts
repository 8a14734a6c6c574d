// PostgreSQL and NATS, reached as the services reach them.
import { createSql } from "@gateway/db";
import { connect } from "@nats-io/transport-node";
import { type Finding, fault, pass, plain, within } from "./finding.js";

export async function checkDatabase(url: string | undefined): Promise<Finding> {
  if (!url) return fault("database", "not set: every service needs it", "DATABASE_URL");
  const sql = createSql({ url, max: 1, applicationName: "doctor" });
  try {
    const [row] = await within(sql<{ server_version: string }[]>`show server_version`, 10_000, "PostgreSQL");
    return pass("database", `PostgreSQL ${row?.server_version ?? "?"} answers`);
  } catch (err) {
    return fault("database", `PostgreSQL did not answer: ${plain(err)}`, "DATABASE_URL");
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

export async function checkNats(servers: string | undefined): Promise<Finding> {
  const list = (servers ?? "nats://127.0.0.1:4222").split(",").map((s) => s.trim());
  try {
    const nc = await connect({ servers: list, timeout: 5_000, maxReconnectAttempts: 0, name: "doctor" });
    const info = nc.info;
    await nc.close();
    return pass("nats", `NATS ${info?.version ?? "?"} answers${info?.jetstream ? " with JetStream" : ""}`);
  } catch (err) {
    return fault("nats", `NATS did not answer: ${plain(err)}`, "NATS_URL");
  }
}
