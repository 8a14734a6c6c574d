// One loop for the watchers' background work (address refresh, heartbeats, polls, reconciliation):
// a step never overlaps the previous one, and stopping waits for the step under way.

export interface Repeating {
  /** No step starts after this; resolves once the step under way, if any, has finished. */
  stop(): Promise<void>;
}

/** Runs `step` `intervalMs` after the previous run has finished, until stopped; a failure goes to `onError`. */
export function repeatEvery(
  intervalMs: number,
  step: () => Promise<unknown>,
  onError: (err: unknown) => void,
): Repeating {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const schedule = () => {
    timer = setTimeout(() => {
      current = step()
        .then(() => {}, onError)
        .finally(() => {
          if (!stopped) schedule();
        });
    }, intervalMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
