/**
 * A worker's pause between passes that a NOTIFY (or a stop) can cut short: `pause(ms)` resolves
 * after `ms` or at the next `wake()`, whichever comes first. A `wake()` while not paused does
 * nothing; a worker that must not miss one keeps its own flag.
 */
export function wakeablePause(): { pause(ms: number): Promise<void>; wake(): void } {
  let wake: (() => void) | undefined;
  return {
    pause: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      }).finally(() => {
        wake = undefined;
      }),
    wake: () => wake?.(),
  };
}
