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
      const address = await signerDepositAddresses(client, 10_000).derive("solana", "live", 7n);
      expect(address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      // Index 7 is handed out now: asked again, the signer says so and names the highest.
      const again = await signerDepositAddresses(signer.client, 1_000)
        .derive("solana", "live", 7n)
        .catch((e: unknown) => e);
      expect(again).toBeInstanceOf(DepositIndexIssuedError);
      expect((again as DepositIndexIssuedError).highestIssued).toBeGreaterThanOrEqual(7);
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
    expect(await signerDepositAddresses(client, 5_000).derive("solana", "live", 3n)).toBe(
      "addr-after-restart",
    );
    expect(calls).toBe(2);
  });

  it("derives requests made together in one call, each with its own outcome", async () => {
    const client = clientAt(Number(new URL(signer.url).port));
    let calls = 0;
    const counting = {
      deriveDepositAddresses: (requests: Parameters<SignerClient["deriveDepositAddresses"]>[0]) => {
        calls++;
        return client.deriveDepositAddresses(requests);
      },
    } as unknown as SignerClient;
    try {
      // Index 100 is handed out before; asked again among others, only its request fails.
      await signerDepositAddresses(client).derive("sui", "test", 100n);
      const source = signerDepositAddresses(counting);
      const indices = [101n, 102n, 100n, 103n, 104n];
      const outcomes = await Promise.allSettled(indices.map((i) => source.derive("sui", "test", i)));
      // The first request goes at once; the four made while it was in flight share the next call.
      expect(calls).toBe(2);
      for (const [n, outcome] of outcomes.entries()) {
        if (indices[n] === 100n) {
          expect(outcome.status).toBe("rejected");
          expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(DepositIndexIssuedError);
        } else {
          expect(outcome).toEqual({
            status: "fulfilled",
            value: testDepositAddress("sui", "test", Number(indices[n])),
          });
        }
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
        .derive("sui", "live", 1n)
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(GatewayError);
      expect((failure as GatewayError).code).toBe("service_unavailable");
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    } finally {
      client.close();
    }
  });
});
