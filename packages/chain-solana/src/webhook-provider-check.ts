// The webhook provider's registration of the watcher's ingress, for `gateway doctor` (doctor-module.ts):
// watcher-solana registers its webhook to WATCHER_PUBLIC_URL when PROVIDER_API_URL is set.
import { type Finding, fault, pass, plain, within } from "@gateway/chain-kit";
import type { WatcherSolanaConfig } from "@gateway/config";

export async function checkWebhookProvider(config: WatcherSolanaConfig): Promise<Finding> {
  if (!config.PROVIDER_API_URL) {
    return pass(
      "webhook provider",
      "PROVIDER_API_URL unset: the provider's webhook to WATCHER_PUBLIC_URL is registered by hand; reconciliation covers the rest",
    );
  }
  const url = new URL("/v0/webhooks", config.PROVIDER_API_URL);
  if (config.PROVIDER_API_KEY) url.searchParams.set("api-key", config.PROVIDER_API_KEY);
  try {
    const response = await within(fetch(url), 10_000, "provider");
    if (response.status === 401 || response.status === 403) {
      return fault(
        "webhook provider",
        `the provider refused the key (HTTP ${response.status})`,
        "PROVIDER_API_KEY",
      );
    }
    if (!response.ok)
      return fault("webhook provider", `the provider answered HTTP ${response.status}`, "PROVIDER_API_URL");
    const hooks = (await response.json()) as { webhookURL?: string }[];
    return hooks.some((h) => h.webhookURL === config.WATCHER_PUBLIC_URL)
      ? pass("webhook provider", `a webhook to ${config.WATCHER_PUBLIC_URL} is registered`)
      : fault(
          "webhook provider",
          `no webhook to ${config.WATCHER_PUBLIC_URL} is registered (${hooks.length} others): start watcher-solana, which registers it, or check the URL`,
          "WATCHER_PUBLIC_URL",
        );
  } catch (err) {
    return fault("webhook provider", `the provider did not answer: ${plain(err)}`, "PROVIDER_API_URL");
  }
}
