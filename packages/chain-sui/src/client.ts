// The Sui gRPC-Web client for calls that answer once, over kept-alive node:http(s) instead of
// Node's fetch, which costs more CPU a call; the watcher's checkpoint stream keeps Node's fetch,
// since keepAliveFetch hands an answer back whole (watcher/module.ts).
import { keepAliveFetch } from "@gateway/chain-kit";
import { SuiGrpcClient } from "@mysten/sui/grpc";

export function suiUnaryClient(network: "mainnet" | "localnet", baseUrl: string): SuiGrpcClient {
  return new SuiGrpcClient({ network, baseUrl, fetch: keepAliveFetch });
}
