/**
 * A failure the user can act on, said in one plain line (no stack trace): a wrong key, an
 * unreachable API, an unknown event. `main` prints the message and exits with `exitCode`.
 */
export class CliError extends Error {
  override readonly name = "CliError";

  constructor(
    message: string,
    readonly exitCode = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
