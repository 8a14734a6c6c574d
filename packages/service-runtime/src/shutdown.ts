import type { Logger } from "@gateway/logging";

/** On SIGTERM/SIGINT, runs the stop steps in the order given (reverse of start-up), then exits. */
export function onShutdown(log: Logger, steps: (() => Promise<unknown>)[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        log.warn({ err }, "shutdown step failed");
      }
    }
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}
