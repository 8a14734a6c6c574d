// The words and formats the dashboard shows for the contracts' lists. The chain table is keyed
// by the whole list, so a chain added to the contracts does not compile until it has a name and
// an address hint here; contracts-drift.test.ts checks the same at run time.
import { CHAINS, type Chain, type Mode, type WebhookEndpoint } from "@gateway/contracts";

export const CHAIN_INFO: Record<Chain, { name: string; hint: string }> = {
  solana: { name: "Solana", hint: "A base58 public key, 32 to 44 characters." },
  sui: { name: "Sui", hint: "0x followed by 64 hexadecimal digits." },
};

/** The chains in the contracts' order, each with its words. */
export const CHAIN_CHOICES = CHAINS.map((id) => ({ id, ...CHAIN_INFO[id] }));

export function chainName(id: Chain): string {
  return CHAIN_INFO[id]?.name ?? id;
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
