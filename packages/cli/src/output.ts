// Where the CLI writes: progress and results in plain words, or one JSON value a line (--json),
// so scripts read stdout and people read both.
export interface Output {
  readonly json: boolean;
  /** Progress for people; in --json mode it goes to stderr so stdout stays machine-readable. */
  say(line: string): void;
  /** A result: the plain line, or the JSON value in --json mode. */
  result(plain: string, value: unknown): void;
  /** A warning or an error line, always on stderr. */
  warn(line: string): void;
}

export function createOutput(
  json: boolean,
  streams: { out: NodeJS.WritableStream; err: NodeJS.WritableStream } = {
    out: process.stdout,
    err: process.stderr,
  },
): Output {
  return {
    json,
    say: (line) => (json ? streams.err : streams.out).write(`${line}\n`),
    result: (plain, value) => streams.out.write(`${json ? JSON.stringify(value) : plain}\n`),
    warn: (line) => streams.err.write(`${line}\n`),
  };
}
