import type { PayoutDestinationEntry } from "./registry.js";

export type DestinationStatus = "pending" | "active" | "cancelled";

export function destinationStatus(entry: PayoutDestinationEntry, now = new Date()): DestinationStatus {
  if (entry.cancelled) return "cancelled";
  return entry.effectiveAt.getTime() <= now.getTime() ? "active" : "pending";
}

/** An allow-listed payout address as the dashboard shows it. */
export function toDestinationResource(entry: PayoutDestinationEntry, now = new Date()) {
  return {
    object: "payout_destination" as const,
    chain: entry.chain,
    mode: entry.mode,
    address: entry.address,
    linked: entry.linked,
    status: destinationStatus(entry, now),
    requested_at: entry.requestedAt.toISOString(),
    effective_at: entry.effectiveAt.toISOString(),
    cancelled_at: entry.cancelledAt?.toISOString() ?? null,
  };
}
