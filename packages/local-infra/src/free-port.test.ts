import net from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "./free-port.js";

describe("freePort", () => {
  it("never hands the same port out twice, though the kernel gives closed ports back", async () => {
    const ports: number[] = [];
    for (let i = 0; i < 2_000; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });

  it("hands out a port something can listen on", async () => {
    const port = await freePort();
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
