// Size and start-up time of every production image: each image built by `npm run images` (kept
// when current), mounted, and started from its own filesystem as its manifest runs it
// (test/images), against PostgreSQL and NATS. Start-up is from the start of the process to its
// first /readyz 200, polled every 200 ms: the signer alone first, then the API, settlement, the
// notifier and the Sui watcher all at once, as a rollout starts them; the migration Job's time
// is to its exit. Sizes are podman's (the whole image, its base included) and the service's
// own folder (/app).
//   pnpm exec tsx bench/images-bench.ts [runs] [--record]
// DATABASE_URL (an admin URL; default the machine's) and NATS_URL (default 127.0.0.1:4222).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSql } from "@gateway/db";
import { createSuiLocalnet } from "@gateway/sui-localnet";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { buildImages } from "../scripts/images/build-images.js";
import { ImageCluster } from "../test/images/src/image-cluster.js";
import { type MountedImage, mountImage } from "../test/images/src/image-process.js";
import { workload } from "../test/images/src/workload.js";
import { machineLine } from "./machine.js";

const root = path.resolve(import.meta.dirname, "..");
const runs = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 3);
const record = process.argv.includes("--record");
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const say = (line: string) => process.stderr.write(`${line}\n`);
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function withDatabase<T>(use: (url: string) => Promise<T>): Promise<T> {
  const name = `gw_images_bench_${randomBytes(4).toString("hex")}`;
  const admin = createSql({ url: adminUrl, max: 1 });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await use(url.toString());
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** Deletes the JetStream streams the run's services made under `prefix`. */
async function dropStreams(prefix: string): Promise<void> {
  const nc = await connect({ servers: natsUrl, name: "images-bench" });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const stream of jsm.streams.list()) {
      if (stream.config.name.startsWith(`${prefix.toUpperCase()}_`))
        await jsm.streams.delete(stream.config.name);
    }
  } finally {
    await nc.close();
  }
}

/** One run: a fresh database migrated by the Job, the signer, then the four services at once. */
async function oneRun(images: Map<string, MountedImage>, run: number): Promise<Record<string, number>> {
  return withDatabase(async (databaseUrl) => {
    const work = mkdtempSync(path.join(os.tmpdir(), "gw-images-bench-"));
    const sui = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 100 });
    const busPrefix = `imgb${run}${randomBytes(3).toString("hex")}`;
    const cluster = new ImageCluster({
      images,
      work,
      databaseUrl,
      natsUrl,
      busPrefix,
      passphrase: randomBytes(12).toString("hex"),
    });
    try {
      const started = performance.now();
      const migrate = cluster.start("api", workload("Job", "migrate"), { DATABASE_URL: databaseUrl });
      if ((await migrate.exited()) !== 0) throw new Error(`migration failed:\n${migrate.output()}`);
      const times: Record<string, number> = { "migrate (Job)": performance.now() - started };
      const signer = await cluster.startSigner();
      times.signer = signer.readyMs;
      const services = await cluster.startServices(signer.url, sui);
      for (const s of services.ready) times[s.name] = s.readyMs;
      return times;
    } finally {
      await cluster.stop();
      await sui.close();
      await dropStreams(busPrefix);
      rmSync(work, { recursive: true, force: true });
    }
  });
}

const built = await buildImages({ root, log: say });
const images = new Map(built.images.map((b) => [b.image.name, mountImage(b.tag)]));
try {
  const sizes = built.images.map((b) => {
    const mounted = images.get(b.image.name);
    const app = Number(
      execFileSync("du", ["-sb", path.join(mounted?.root ?? "", "app")], { encoding: "utf8" }).split("\t")[0],
    );
    return { name: b.image.name, image: b.bytes, app };
  });
  const results: Record<string, number>[] = [];
  const loads: string[] = [];
  for (let run = 1; run <= runs; run++) {
    const load = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
    const times = await oneRun(images, run);
    results.push(times);
    loads.push(load);
    say(
      `run ${run} (load ${load}): ${Object.entries(times)
        .map(([n, ms]) => `${n} ${ms.toFixed(0)} ms`)
        .join(", ")}`,
    );
  }
  const names = Object.keys(results[0] ?? {});
  const lines = [
    "",
    `## ${new Date().toISOString().slice(0, 10)}: ${runs} runs, ${machineLine()}`,
    "",
    `Base image ${built.base}. Sizes as podman reports them; /app is the service's own folder.`,
    `Load average (1, 5, 15 min) at each run's start: ${loads.map((l, i) => `run ${i + 1} ${l}`).join("; ")}.`,
    "",
    "| image | image MB | /app MB |",
    "| - | -: | -: |",
    ...sizes.map((s) => `| gateway-${s.name} | ${mb(s.image)} | ${mb(s.app)} |`),
    "",
    `| process | ${results.map((_, i) => `run ${i + 1} ms`).join(" | ")} | median ms |`,
    `| - | ${results.map(() => "-:").join(" | ")} | -: |`,
    ...names.map(
      (n) =>
        `| ${n} | ${results.map((r) => (r[n] ?? NaN).toFixed(0)).join(" | ")} | ${median(results.map((r) => r[n] ?? NaN)).toFixed(0)} |`,
    ),
    "",
  ];
  process.stdout.write(lines.join("\n"));
  if (record) appendFileSync(path.join(root, "bench/RESULTS-images.md"), lines.join("\n"));
} finally {
  for (const mounted of images.values()) mounted.unmount();
}
