// Telling the webhook provider which addresses to report. Helius' webhook API (create, list,
// edit with the full accountAddresses list) is implemented here; the local network serves the
// same API, so the local registry is this one with another base URL.

export interface AddressRegistry {
  /** Makes the provider report exactly these addresses to our ingress. */
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

  return {
    async sync(addresses) {
      if (!webhookId) {
        const existing = await call<HeliusWebhook[]>("GET", "/v0/webhooks");
        webhookId = existing.find((w) => w.webhookURL === options.webhookUrl)?.webhookID;
        if (!webhookId) {
          webhookId = (await call<HeliusWebhook>("POST", "/v0/webhooks", definition(addresses))).webhookID;
          return;
        }
      }
      await call("PUT", `/v0/webhooks/${webhookId}`, definition(addresses));
    },
  };
}
