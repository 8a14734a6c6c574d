// The `gateway` command: its subcommands, and one place that turns any failure into a plain
// line on stderr and a non-zero exit, never a stack trace.
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { ApiClient, ApiError } from "./api-client.js";
import { CliError } from "./cli-error.js";
import { type CliConfig, readConfig, requireTestKey } from "./config.js";
import { EventForwarder, localSigningSecret } from "./listen.js";
import { createOutput, type Output } from "./output.js";
import { getPayment, listPayments } from "./payments.js";
import { TRIGGERS, trigger } from "./trigger.js";

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError("must be a positive integer.");
  return Number(value);
}

function httpUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return value;
  } catch {
    // answered below
  }
  throw new InvalidArgumentError("must be an http(s) URL, such as http://localhost:4242/webhooks.");
}

interface Context {
  config: CliConfig;
  out: Output;
}

/** What every subcommand starts from: the configuration and output, and an API client over them. */
interface Commands {
  context(): Context;
  client(ctx: Context, retries?: number): ApiClient;
}

export function buildProgram(env: Record<string, string | undefined>): Command {
  const program = new Command("gateway")
    .description(
      "Gateway from the command line: forward events to your server, trigger test payments, read payments.",
    )
    .option("--json", "print results as JSON, one value a line")
    .showSuggestionAfterError(true)
    .exitOverride();
  const commands: Commands = {
    context: () => {
      const out = createOutput(Boolean(program.opts().json));
      return { config: readConfig(env), out };
    },
    client: ({ config, out }, retries) =>
      new ApiClient({
        baseUrl: config.baseUrl,
        apiKey: config.apiKey,
        out,
        ...(retries === undefined ? {} : { retries }),
      }),
  };
  addListen(program, commands);
  addTrigger(program, commands);
  addPayments(program, commands);
  return program;
}

function addListen(program: Command, { context, client }: Commands) {
  program
    .command("listen")
    .description("Forward every new event of the test mode to a local URL, signed with a local secret.")
    .requiredOption("--forward-to <url>", "where to POST each event", httpUrl)
    .option("--events <types>", "comma-separated event types to forward (default: all)")
    .addOption(
      new Option("--interval <ms>", "how often to ask for new events").argParser(positiveInt).default(1000),
    )
    .action(async (opts: { forwardTo: string; events?: string; interval: number }) => {
      const ctx = context();
      requireTestKey(ctx.config, "listen");
      const secret = localSigningSecret();
      ctx.out.result(`Your webhook signing secret is ${secret} (verify the forwarded events with it).`, {
        secret,
      });
      // Following for ever: an API that goes away is waited for, with backoff, and said so.
      const forwarder = new EventForwarder({
        client: client(ctx, Number.POSITIVE_INFINITY),
        out: ctx.out,
        forwardTo: opts.forwardTo,
        secret,
        pollMs: opts.interval,
        types: opts.events ? opts.events.split(",").map((t) => t.trim()) : [],
      });
      await forwarder.start();
      ctx.out.say(`Ready: forwarding events to ${opts.forwardTo}. Ctrl-C to stop.`);
      const stop = () => forwarder.stop();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      await forwarder.run();
    });
}

function addTrigger(program: Command, { context, client }: Commands) {
  program
    .command("trigger")
    .description(`Create a test payment and drive it to an event: ${Object.keys(TRIGGERS).join(", ")}.`)
    .argument("<event>", "the event to cause")
    .option("--amount <amount>", "the payment's amount", "10.00")
    .option("--currency <currency>", "the payment's currency", "USD")
    .addOption(
      new Option("--timeout <seconds>", "how long to wait for the outcome")
        .argParser(positiveInt)
        .default(30),
    )
    .action(async (event: string, opts: { amount: string; currency: string; timeout: number }) => {
      const ctx = context();
      requireTestKey(ctx.config, "trigger");
      try {
        await trigger({ client: client(ctx), out: ctx.out, event, ...opts, timeoutMs: opts.timeout * 1000 });
      } catch (err) {
        if (err instanceof ApiError)
          throw new CliError(`The payment could not be made: ${err.message} (${err.code})`);
        throw err;
      }
    });
}

function addPayments(program: Command, { context, client }: Commands) {
  const payments = program.command("payments").description("Read payments of the key's mode.");
  payments
    .command("list")
    .description("The newest payments first.")
    .addOption(new Option("--limit <n>", "how many, 1 to 100").argParser(positiveInt).default(10))
    .option("--status <status>", "only payments in this status")
    .option("--starting-after <id>", "the page after this payment")
    .action(async (opts: { limit: number; status?: string; startingAfter?: string }) => {
      const ctx = context();
      await listPayments(client(ctx), ctx.out, opts);
    });
  payments
    .command("get")
    .description("One payment.")
    .argument("<id>", "the payment's id")
    .action(async (id: string) => {
      const ctx = context();
      await getPayment(client(ctx), ctx.out, id);
    });
}

/** Runs the command line; resolves with the exit code. */
export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const program = buildProgram(env);
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (err) {
    // Commander has printed its own one line (unknown command, missing argument) or the help.
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliError) {
      process.stderr.write(`${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`gateway failed unexpectedly: ${(err as Error)?.message ?? String(err)}\n`);
    return 1;
  }
}
