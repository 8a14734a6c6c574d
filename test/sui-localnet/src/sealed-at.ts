// When a transaction became final on Sui: the timestamp of the checkpoint that holds it, as a
// client reads it over gRPC. Benches measure latency from it (bench/sui-bench.ts,
// bench/pipeline-bench.ts through the customer pool).
import type { SuiGrpcClient } from "@mysten/sui/grpc";

/** Milliseconds since the epoch at which the checkpoint holding `digest` was sealed; waits for it. */
export async function sealedAt(client: SuiGrpcClient, digest: string, pollMs = 20): Promise<number> {
  for (;;) {
    const sequence = (await client.getTransaction({ digest })).Transaction?.checkpoint;
    if (sequence) {
      const { response } = await client.ledgerService.getCheckpoint({
        checkpointId: { oneofKind: "sequenceNumber", sequenceNumber: BigInt(sequence) },
        readMask: { paths: ["summary.timestamp"] },
      });
      const at = response.checkpoint?.summary?.timestamp;
      if (!at) throw new Error(`checkpoint ${sequence} has no timestamp`);
      return Number(at.seconds) * 1000 + Math.floor(at.nanos / 1e6);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
