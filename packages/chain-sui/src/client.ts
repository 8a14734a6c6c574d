// The Sui gRPC-Web client (chain-solana's connection.ts) for calls that answer once (settlement, the preflight probe, the doctor,
// the restore runbook, the operator's retry): over kept-alive node:http(s) (keepAliveFetch)
// instead of Node's fetch, which cost several times more CPU per call. keepAliveFetch hands an
// answer back whole, so the watcher's checkpoint subscription, a stream, keeps a client on Node's
// fetch (watcher/module.ts).
import { keepAliveFetch } from "@gateway/chain-kit";
import { SuiGrpcClient } from "@mysten/sui/grpc";

export function suiUnaryClient(network: "mainnet" | "localnet", baseUrl: string): SuiGrpcClient {
  return new SuiGrpcClient({ network, baseUrl, fetch: keepAliveFetch });
}
