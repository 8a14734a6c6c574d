import { readFileSync } from "node:fs";
import net from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { GatewayError } from "@gateway/errors";
import { freePort } from "@gateway/local-infra";
import { createSignerClient, DepositIndexIssuedError, type SignerClient } from "@gateway/signer-client";
import { startTestSigner, type TestSigner, testDepositAddress } from "@gateway/signer-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerDepositAddresses } from "./signer-addresses.js";

let signer: TestSigner;
beforeAll(async () => {
  signer = await startTestSigner();
});
afterAll(async () => {
  await signer?.close();
});

const clientAt = (port: number) =>
  createSignerClient({
    baseUrl: `https://127.0.0.1:${port}`,
    tls: {
      ca: readFileSync(signer.tls.api.ca),
      cert: readFileSync(signer.tls.api.cert),
      key: readFileSync(signer.tls.api.key),
    },
  });

describe("deposit addresses from the signer", () => {
  it("waits out a signer that is restarting, then derives the same address", async () => {
    const port = await freePort();
    const client = clientAt(port);
    // The signer "comes back" on `port` after 700 ms: a TCP relay to the running test signer.
    const signerPort = Number(new URL(signer.url).port);
    let relay: net.Server | undefined;
    const back = setTimeout(() => {
      relay = net
        .createServer((socket) => socket.pipe(net.connect(signerPort, "127.0.0.1")).pipe(socket))
        .listen(port, "127.0.0.1");
    }, 700);
    try {
      const [first] = await signerDepositAddresses(client, 10_000).derive("solana", "live", [7n]);
      expect(first).toEqual({ address: testDepositAddress("solana", "live", 7) });
      // Index 7 is handed out now: asked again, the signer says so and names the highest.
      const [again] = await signerDepositAddresses(signer.client, 1_000).derive("solana", "live", [7n]);
      expect(again).toEqual({ issued: expect.any(DepositIndexIssuedError) });
      expect((again as { issued: DepositIndexIssuedError }).issued.highestIssued).toBeGreaterThanOrEqual(7);
    } finally {
      clearTimeout(back);
      client.close();
      await new Promise((r) => (relay ? relay.close(r) : r(undefined)));
    }
  });

  it("asks again when a signer killed mid-call resets the stream (Canceled)", async () => {
    let calls = 0;
    const client = {
      async deriveDepositAddresses() {
        calls++;
        if (calls === 1)
          throw new ConnectError("http/2 stream closed with error code CANCEL (0x8)", Code.Canceled);
        return [{ address: "addr-after-restart" }];
      },
    } as unknown as SignerClient;
    expect(await signerDepositAddresses(client, 5_000).derive("solana", "live", [3n])).toEqual([
      { address: "addr-after-restart" },
    ]);
    expect(calls).toBe(2);
  });

  it("derives many indices in calls of at most 256, each index with its own outcome", async () => {
    const client = clientAt(Number(new URL(signer.url).port));
    const sizes: number[] = [];
    const counting = {
      deriveDepositAddresses: (requests: Parameters<SignerClient["deriveDepositAddresses"]>[0]) => {
        sizes.push(requests.length);
        return client.deriveDepositAddresses(requests);
      },
    } as unknown as SignerClient;
    try {
      // Index 100 is handed out before; asked again among others, only its outcome says so.
      await signerDepositAddresses(client).derive("sui", "test", [100n]);
      const indices = [101n, 102n, 100n, ...Array.from({ length: 300 }, (_, i) => BigInt(1_000 + i))];
      const outcomes = await signerDepositAddresses(counting).derive("sui", "test", indices);
      expect(sizes).toEqual([256, 47]);
      expect(outcomes).toHaveLength(indices.length);
      for (const [n, outcome] of outcomes.entries()) {
        if (indices[n] === 100n) expect(outcome).toEqual({ issued: expect.any(DepositIndexIssuedError) });
        else expect(outcome).toEqual({ address: testDepositAddress("sui", "test", Number(indices[n])) });
      }
    } finally {
      client.close();
    }
  });

  it("answers service_unavailable once the signer stays away longer than the retry window", async () => {
    const client = clientAt(await freePort());
    const started = Date.now();
    try {
      const failure = await signerDepositAddresses(client, 400)
        .derive("sui", "live", [1n])
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(GatewayError);
      expect((failure as GatewayError).code).toBe("service_unavailable");
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    } finally {
      client.close();
    }
  });
});
