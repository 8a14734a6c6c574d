// Work many events ask for that need run once for all of them: one run in flight, one queued that
// every call made meanwhile shares. A call settles after a run that started after it (so sees what
// the caller saw), and runs never overlap, so a later one is never overtaken by an earlier one.

export interface Coalesced {
  /** Runs the task, or joins the run already queued; settles when that run has. */
  run(): Promise<void>;
  /** Resolves once no run is in flight or queued (whatever their outcome). */
  idle(): Promise<void>;
}

export interface CoalesceOptions {
  /**
   * A run starts no sooner than this after the previous one started: a rate limit for work that
   * costs per call (a provider that bills each edit). A call after a quiet spell runs at once.
   */
  minGapMs?: number;
}

export function coalesce(task: () => Promise<void>, options: CoalesceOptions = {}): Coalesced {
  const minGapMs = options.minGapMs ?? 0;
  let active: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let lastStart = Number.NEGATIVE_INFINITY;

  function run(): Promise<void> {
    if (queued) return queued;
    const previous = active;
    // `then` defers the body, so `queued` is set before the body can clear it.
    const next = Promise.resolve().then(async () => {
      await previous?.catch(() => {});
      // A loop, since a timer may fire a fraction of a millisecond early.
      for (let wait = lastStart + minGapMs - performance.now(); wait > 0; ) {
        await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
        wait = lastStart + minGapMs - performance.now();
      }
      // From here on a new call queues behind this run instead of joining it.
      queued = undefined;
      lastStart = performance.now();
      const current = task();
      active = current;
      try {
        await current;
      } finally {
        if (active === current) active = undefined;
      }
    });
    queued = next;
    return next;
  }

  return {
    run,
    async idle() {
      while (queued || active) await (queued ?? active)?.catch(() => {});
    },
  };
}
