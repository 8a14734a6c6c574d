// Every Solana RPC connection the services open: web3.js's Connection over kept-alive
// node:http(s) connections (keepAliveFetch) instead of Node's fetch, which cost settlement and the
// watcher several times more CPU per call than the call's own work.
import { keepAliveFetch } from "@gateway/chain-kit";
import { type Commitment, Connection } from "@solana/web3.js";

export function solanaConnection(rpcUrl: string, commitment: Commitment, wsUrl?: string): Connection {
  return new Connection(rpcUrl, {
    commitment,
    fetch: keepAliveFetch,
    ...(wsUrl ? { wsEndpoint: wsUrl } : {}),
  });
}
