import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepAliveFetch } from "./keep-alive-fetch.js";

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket: number;
}

describe("keepAliveFetch", () => {
  const seen: Seen[] = [];
  const sockets = new Map<unknown, number>();
  /** Calls each connection has brought before this one. */
  const served = new Map<unknown, number>();
  let base = "";
  const server = http.createServer((request, response) => {
    if (!sockets.has(request.socket)) sockets.set(request.socket, sockets.size + 1);
    served.set(request.socket, (served.get(request.socket) ?? 0) + 1);
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({
        method: request.method!,
        url: request.url!,
        headers: request.headers,
        body,
        socket: sockets.get(request.socket)!,
      });
      const path = new URL(request.url!, "http://x").pathname;
      if (path === "/gzip") {
        response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        response.end(zlib.gzipSync(JSON.stringify({ inflated: true })));
      } else if (path === "/limited") {
        response.writeHead(429, "Too Many Requests", { "retry-after": "1" });
        response.end("slow down");
      } else if (path === "/empty") {
        response.writeHead(204);
        response.end();
      } else if (path === "/closed-as-sent" && served.get(request.socket)! > 1) {
        // The server closes a kept connection just as a call arrives on it, without answering.
        request.socket.destroy();
      } else if (path === "/hang") {
        // Never answers: the caller's signal must end the call.
      } else if (path === "/cut") {
        response.writeHead(200, { "content-length": "100" });
        response.write("only part");
        setTimeout(() => response.socket?.destroy(), 20);
      } else {
        response.writeHead(201, "Made", { "x-twice": ["a", "b"], "content-type": "text/plain" });
        response.end(`echo:${body}`);
      }
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("sends the method, headers and body, and hands back status, status text, headers and body", async () => {
    const response = await keepAliveFetch(`${base}/echo?q=1`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Token": "t" },
      body: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Made");
    expect(response.ok).toBe(true);
    expect(response.headers.get("x-twice")).toBe("a, b");
    expect(await response.text()).toBe('echo:{"a":1}');
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ method: "POST", url: "/echo?q=1", body: '{"a":1}' });
    expect(request.headers).toMatchObject({
      "content-type": "application/json",
      "x-token": "t",
      "content-length": "7",
    });
  });

  it("takes headers as a Headers object or pairs, a URL object and a byte body", async () => {
    await keepAliveFetch(new URL(`${base}/echo`), {
      method: "PUT",
      headers: new Headers({ "X-One": "1" }),
      body: new TextEncoder().encode("héllo"),
    });
    expect(seen.at(-1)).toMatchObject({
      method: "PUT",
      body: "héllo",
      headers: { "x-one": "1", "content-length": "6" },
    });
    await keepAliveFetch(`${base}/echo`, { headers: [["X-Two", "2"]] });
    expect(seen.at(-1)).toMatchObject({ method: "GET", body: "", headers: { "x-two": "2" } });
  });

  it("keeps one connection for calls made one after another", async () => {
    const before = seen.length;
    for (let i = 0; i < 5; i++)
      await (await keepAliveFetch(`${base}/echo`, { method: "POST", body: String(i) })).text();
    const used = new Set(seen.slice(before).map((request) => request.socket));
    expect(used.size).toBe(1);
  });

  it("sends a call again on a new connection when the server closed the kept one as it went out", async () => {
    await (await keepAliveFetch(`${base}/echo`, { method: "POST", body: "first" })).text();
    const before = seen.length;
    const response = await keepAliveFetch(`${base}/closed-as-sent`, { method: "POST", body: "again" });
    expect(await response.text()).toBe("echo:again");
    // The server read it on the kept connection (and dropped it), then on a new one.
    const calls = seen.slice(before).filter((request) => request.url === "/closed-as-sent");
    expect(calls).toHaveLength(2);
    expect(calls[0]!.socket).not.toBe(calls[1]!.socket);
    expect(calls[1]!.socket).toBe(sockets.size);
  });

  it("leaves an idle connection a second before the server's announced keep-alive ends", async () => {
    const connections = new Set<unknown>();
    const brief = http.createServer((request, response) => {
      connections.add(request.socket);
      request.resume();
      request.on("end", () => response.end("ok"));
    });
    brief.keepAliveTimeout = 2_000; // announced as Keep-Alive: timeout=2
    await new Promise<void>((resolve) => brief.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(brief.address() as AddressInfo).port}/`;
    try {
      await (await keepAliveFetch(url)).text();
      await (await keepAliveFetch(url)).text();
      expect(connections.size).toBe(1);
      // Past the announced timeout less a second, still inside it: a new connection, not one
      // the server is about to close.
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      await (await keepAliveFetch(url)).text();
      expect(connections.size).toBe(2);
    } finally {
      brief.closeAllConnections();
      await new Promise((resolve) => brief.close(resolve));
    }
  });

  it("hands back an error status as a response, as fetch does", async () => {
    const response = await keepAliveFetch(`${base}/limited`);
    expect(response.ok).toBe(false);
    expect(response.status).toBe(429);
    expect(response.statusText).toBe("Too Many Requests");
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.text()).toBe("slow down");
  });

  it("inflates a compressed answer and takes a bodiless status", async () => {
    expect(await (await keepAliveFetch(`${base}/gzip`)).json()).toEqual({ inflated: true });
    const empty = await keepAliveFetch(`${base}/empty`);
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe("");
  });

  it("fails on a refused connection, a body cut short, and when the caller aborts", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(keepAliveFetch(`http://127.0.0.1:${port}/`)).rejects.toThrow("fetch failed");

    await expect(keepAliveFetch(`${base}/cut`)).rejects.toThrow("fetch failed");

    const controller = new AbortController();
    const call = keepAliveFetch(`${base}/hang`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("caller gave up")), 20);
    await expect(call).rejects.toThrow("caller gave up");
    const aborted = AbortSignal.abort(new Error("before it began"));
    await expect(keepAliveFetch(`${base}/echo`, { signal: aborted })).rejects.toThrow("before it began");
  });
});
