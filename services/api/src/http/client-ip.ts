import net from "node:net";
import type { Request } from "express";

/**
 * The client's address. X-Forwarded-For is believed only when the direct peer is one of the
 * configured trusted proxies, and then we take the rightmost address not itself trusted: anything
 * to the left of it could have been written by the client.
 */
export function createClientIp(trustedProxies: string[]) {
  const trusted = new Set(trustedProxies.map(normalize));
  return (req: Request): string => {
    const peer = normalize(req.socket.remoteAddress ?? "unknown");
    if (!trusted.has(peer)) return peer;
    const header = req.headers["x-forwarded-for"];
    const chain = (Array.isArray(header) ? header.join(",") : (header ?? ""))
      .split(",")
      .map((s) => normalize(s.trim()))
      .filter((s) => net.isIP(s) !== 0);
    for (let i = chain.length - 1; i >= 0; i--) {
      const hop = chain[i]!;
      if (!trusted.has(hop)) return hop;
    }
    return peer;
  };
}

function normalize(address: string): string {
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}
