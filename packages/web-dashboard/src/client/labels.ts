// The words and formats the dashboard shows for the contracts' lists; chains by their labels
// (@gateway/chains/labels), which the checkout shares.
import { CHAIN_LABELS } from "@gateway/chains/labels";
import { CHAINS, type Chain, type Mode, type WebhookEndpoint } from "@gateway/contracts";

/** The chains in the contracts' order, each with its words. */
export const CHAIN_CHOICES = CHAINS.map((id) => ({
  id,
  name: CHAIN_LABELS[id].name,
  hint: CHAIN_LABELS[id].addressHint,
}));

export function chainName(id: Chain): string {
  return CHAIN_LABELS[id]?.name ?? id;
}

export function modeName(mode: Mode): string {
  return mode === "live" ? "Live" : "Test";
}

export function formatDate(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function utcHour(hour: number): string {
  return `${String(hour).padStart(2, "0")}:00 UTC`;
}

/** A plain decimal such as 25.50: what the amount fields accept, checked before any call. */
export function isPlainDecimal(text: string): boolean {
  return /^\d+(\.\d+)?$/.test(text);
}

/** What an endpoint subscribes to, in words. */
export function eventsText(endpoint: Pick<WebhookEndpoint, "events">): string {
  return endpoint.events.includes("*") ? "All events" : endpoint.events.join(", ");
}
