// Which addresses the Solana watcher has registered with the provider (the local network's
// Helius-style webhook API): paying before then would leave the transfer to reconciliation.
export interface RegistrationWatch {
  registered(address: string, timeoutMs?: number): Promise<void>;
  stop(): void;
}

export function watchSolanaRegistrations(rpcUrl: string, pollMs = 500): RegistrationWatch {
  const waiters = new Map<
    string,
    { resolve: () => void; reject: (err: Error) => void; deadline: number }[]
  >();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  async function poll() {
    if (waiters.size > 0) {
      try {
        const hooks = (await (await fetch(`${rpcUrl}/v0/webhooks`)).json()) as {
          accountAddresses: string[];
        }[];
        const known = new Set(hooks.flatMap((hook) => hook.accountAddresses));
        const now = Date.now();
        for (const [address, list] of waiters) {
          if (known.has(address)) {
            for (const waiter of list) waiter.resolve();
            waiters.delete(address);
            continue;
          }
          const late = list.filter((waiter) => waiter.deadline <= now);
          for (const waiter of late)
            waiter.reject(new Error(`${address} not registered with the provider in time`));
          const left = list.filter((waiter) => waiter.deadline > now);
          if (left.length === 0) waiters.delete(address);
          else waiters.set(address, left);
        }
      } catch {
        // the network is busy or restarting: the next poll retries
      }
    }
    if (!stopped) timer = setTimeout(poll, pollMs);
  }
  timer = setTimeout(poll, pollMs);

  return {
    registered(address, timeoutMs = 30_000) {
      return new Promise<void>((resolve, reject) => {
        const list = waiters.get(address) ?? [];
        list.push({ resolve, reject, deadline: Date.now() + timeoutMs });
        waiters.set(address, list);
      });
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
