// Telling the webhook provider which addresses to report. Helius' webhook API (create, list,
// edit with the full accountAddresses list) is implemented here; the local network serves the
// same API, so the local registry is this one with another base URL.
import { coalesce } from "@gateway/watcher-kit";

export interface AddressRegistry {
  /**
   * Makes the provider report exactly these addresses to our ingress. Calls may overlap: the last
   * call's list is the one left registered, and each call settles once a list at least as recent
   * as its own is.
   */
  sync(addresses: readonly string[]): Promise<void>;
}

export interface HeliusRegistryOptions {
  /** https://api.helius.xyz for Helius; the local network's RPC URL here. */
  baseUrl: string;
  apiKey?: string;
  /** Where the provider posts: the watcher's public ingress URL. */
  webhookUrl: string;
  authHeader: string;
  fetch?: typeof fetch;
  /**
   * Edits start at least this far apart (1 s by default, `PROVIDER_EDIT_GAP_MS`). Helius bills
   * every edit (100 credits) and each sends the whole list, so a flash sale that opens hundreds
   * of addresses a second must not make hundreds of edits; the addresses opened meanwhile go in
   * the next edit. One a second is what the polling registration of before made at most, so the
   * bill does not grow with this default; an edit after a quiet spell goes at once. A shorter gap
   * registers addresses sooner during a sale, for up to that many more edits.
   */
  minGapMs?: number;
}

export class RegistryError extends Error {
  override readonly name = "RegistryError";
}

interface HeliusWebhook {
  webhookID: string;
  webhookURL: string;
}

export function createHeliusRegistry(options: HeliusRegistryOptions): AddressRegistry {
  const doFetch = options.fetch ?? fetch;
  let webhookId: string | undefined;

  function endpoint(path: string) {
    const url = new URL(path, options.baseUrl);
    if (options.apiKey) url.searchParams.set("api-key", options.apiKey);
    return url;
  }

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await doFetch(endpoint(path), {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      throw new RegistryError(`${method} ${path}: ${response.status} ${await response.text()}`);
    }
    return (await response.json()) as T;
  }

  function definition(addresses: readonly string[]) {
    return {
      webhookURL: options.webhookUrl,
      accountAddresses: addresses,
      transactionTypes: ["ANY"],
      webhookType: "enhanced",
      authHeader: options.authHeader,
      txnStatus: "all",
    };
  }

  async function put(addresses: readonly string[]) {
    if (!webhookId) {
      const existing = await call<HeliusWebhook[]>("GET", "/v0/webhooks");
      webhookId = existing.find((w) => w.webhookURL === options.webhookUrl)?.webhookID;
      if (!webhookId) {
        webhookId = (await call<HeliusWebhook>("POST", "/v0/webhooks", definition(addresses))).webhookID;
        return;
      }
    }
    await call("PUT", `/v0/webhooks/${webhookId}`, definition(addresses));
  }

  // An edit replaces the whole list, so two edits in flight at once could land in either order
  // and leave the older list registered (and two first calls could each create a webhook). One
  // edit at a time, then, and the one queued sends the newest list asked for when it starts.
  let wanted: readonly string[] = [];
  const edits = coalesce(() => put(wanted), { minGapMs: options.minGapMs ?? 1000 });

  return {
    sync(addresses) {
      wanted = addresses;
      return edits.run();
    },
  };
}
