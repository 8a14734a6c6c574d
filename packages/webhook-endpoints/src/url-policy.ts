import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import type { Mode } from "@gateway/contracts";
import { GatewayError } from "@gateway/errors";

const MAX_URL_LENGTH = 2048;

/*
 * Addresses a webhook may not reach unless the operator allows private networks (development):
 * otherwise any merchant could make our servers POST to, and read the answer of, internal services
 * (cloud metadata, databases' HTTP ports, the admin network).
 */
const forbiddenV4 = new BlockList();
const forbiddenV6 = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this network", includes the unspecified address
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved and broadcast
] as const) {
  forbiddenV4.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b::", 96], // NAT64, same reason
  ["64:ff9b:1::", 48],
  ["100::", 64], // discard
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4 embeds an IPv4 address
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const) {
  forbiddenV6.addSubnet(net, prefix, "ipv6");
}

/** True for private, loopback, link-local, unique-local, multicast, unspecified and reserved addresses. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return forbiddenV4.check(address, "ipv4");
  // The IPv4 list also matches IPv4-mapped IPv6 forms (::ffff:127.0.0.1), a classic back door.
  return forbiddenV6.check(address, "ipv6") || forbiddenV4.check(address, "ipv6");
}

function isLoopback(address: string): boolean {
  return address === "::1" || /^127\./.test(address);
}

export interface UrlPolicyOptions {
  mode: Mode;
  /** ALLOW_PRIVATE_WEBHOOKS: development only. */
  allowPrivate: boolean;
}

export interface ResolvedTarget {
  url: URL;
  /** The checked address to connect to; connecting to it (not the name again) defeats DNS rebinding. */
  address: string;
  family: 4 | 6;
}

/** Syntax rules that need no DNS: scheme per mode, no credentials, no fragment, bounded length. */
export function parseWebhookUrl(raw: unknown, { mode, allowPrivate }: UrlPolicyOptions): URL {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_URL_LENGTH) {
    throw new GatewayError("url_invalid", { param: "url", message: "url must be an http(s) URL." });
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GatewayError("url_invalid", { param: "url", message: "url is not a valid URL." });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new GatewayError("url_invalid", {
      param: "url",
      message: "url must use https (or http in test mode).",
    });
  }
  if (url.username || url.password) {
    throw new GatewayError("url_invalid", { param: "url", message: "url must not contain credentials." });
  }
  if (url.hash)
    throw new GatewayError("url_invalid", { param: "url", message: "url must not have a fragment." });
  // Live endpoints get real customers' events: TLS only, except loopback in development.
  if (mode === "live" && url.protocol === "http:" && !(allowPrivate && isLoopbackHost(url.hostname))) {
    throw new GatewayError("url_invalid", { param: "url", message: "Live webhook URLs must use https." });
  }
  return url;
}

function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  return host === "localhost" || isLoopback(host);
}

/**
 * Parses the URL and resolves its host; every address it resolves to must be allowed (one bad
 * answer could be picked on the next lookup). Used at registration and again before every attempt.
 */
export async function resolveWebhookTarget(raw: unknown, options: UrlPolicyOptions): Promise<ResolvedTarget> {
  const url = parseWebhookUrl(raw, options);
  const host = hostOf(url);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (cause) {
      throw new GatewayError("url_invalid", { param: "url", message: "url's host does not resolve.", cause });
    }
  }
  const first = addresses[0];
  if (!first)
    throw new GatewayError("url_invalid", { param: "url", message: "url's host does not resolve." });
  if (!options.allowPrivate && addresses.some((a) => isForbiddenAddress(a.address))) {
    throw new GatewayError("url_forbidden", { param: "url" });
  }
  if (options.mode === "live" && url.protocol === "http:" && !addresses.every((a) => isLoopback(a.address))) {
    throw new GatewayError("url_invalid", { param: "url", message: "Live webhook URLs must use https." });
  }
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
