import {
  DiscardPolicy,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from "@nats-io/jetstream";

/**
 * Subjects and streams, named from one prefix so several deployments (or test files) can share a
 * NATS server without seeing each other's messages.
 *
 * - `<p>.events.<type>`          merchant-visible events (payment.*, payout.*), for the notifier
 * - `<p>.cmd.payment.<type>`     commands to payment actors (simulate); the payment is in the payload
 * - `<p>.cmd.deposit.<chain>`    deposits observed by the chain watchers, for settlement
 * - `<p>.cmd.settle.<kind>`      settlement work items (sweep, refund) for the settlement service
 * - `<p>.cmd.mail.<kind>`        mails for the API to send a customer (a surplus refund's notice)
 *
 * No subject names a payment, a payout or anything else there is one of per customer: nats-server
 * keeps an entry for every distinct subject a file stream holds (docs/operations.md#stream-subjects),
 * and the streams hold 7 days, so a subject per payment grows its memory with every payment for a week.
 */
export function busTopology(prefix: string) {
  const p = prefix.toLowerCase();
  const P = prefix.toUpperCase();
  return {
    prefix: p,
    streams: {
      events: `${P}_EVENTS`,
      commands: `${P}_COMMANDS`,
    },
    subjects: {
      event: (type: string) => `${p}.events.${type}`,
      allEvents: `${p}.events.>`,
      paymentCommand: (type: string) => `${p}.cmd.payment.${type}`,
      allPaymentCommands: `${p}.cmd.payment.>`,
      deposit: (chain: string) => `${p}.cmd.deposit.${chain}`,
      allDeposits: `${p}.cmd.deposit.>`,
      settlement: (kind: string) => `${p}.cmd.settle.${kind}`,
      allSettlement: `${p}.cmd.settle.>`,
      mail: (kind: string) => `${p}.cmd.mail.${kind}`,
      allCommands: `${p}.cmd.>`,
    },
  };
}

export type BusTopology = ReturnType<typeof busTopology>;

/** The window in which JetStream drops a second message with the same Nats-Msg-Id. */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;

function streamConfigs(topology: BusTopology): (Partial<StreamConfig> & { name: string })[] {
  const base = {
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    duplicate_window: DUPLICATE_WINDOW_MS * 1_000_000,
    max_age: 7 * 24 * 3600 * 1_000_000_000,
  };
  return [
    { ...base, name: topology.streams.events, subjects: [topology.subjects.allEvents] },
    { ...base, name: topology.streams.commands, subjects: [topology.subjects.allCommands] },
  ];
}

/** Declares the streams in code; safe to call from every replica at start-up. */
export async function ensureStreams(
  jsm: JetStreamManager,
  topology: BusTopology,
  replicas = 1,
): Promise<void> {
  for (const config of streamConfigs(topology)) {
    const wanted = { ...config, num_replicas: replicas };
    try {
      await jsm.streams.info(config.name);
      await jsm.streams.update(config.name, wanted);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await jsm.streams.add(wanted);
      } catch (addErr) {
        // Another replica created it between our info and add.
        if (!String(addErr).includes("already in use")) throw addErr;
      }
    }
  }
}

function isNotFound(err: unknown): boolean {
  return /not found/i.test(String((err as Error)?.message ?? err));
}
