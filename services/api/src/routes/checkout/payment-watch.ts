import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";

export interface PaymentChange {
  version: number;
  status: string;
}

export interface PaymentWatch {
  /**
   * Calls `onChange` whenever the payment's version moves past `version`, until the returned
   * function is called. `onClose` runs if the watch itself closes (the process is stopping).
   */
  follow(
    paymentId: string,
    version: number,
    onChange: (change: PaymentChange) => void,
    onClose: () => void,
  ): () => void;
  /** Ends every follower (their `onClose` runs) and stops polling; later followers end at once. */
  close(): void;
}

interface Follower {
  version: number;
  onChange(change: PaymentChange): void;
  onClose(): void;
}

/**
 * What open checkout pages follow, for one API process: one query per interval for all the
 * payments any of its streams follows, however many there are, and none while nobody follows.
 * Every change of a payment, whichever process made it, bumps its `version`, so reading versions
 * is enough to notice any of them.
 */
export function createPaymentWatch(sql: Sql, log: Logger, intervalMs = 1000): PaymentWatch {
  const followers = new Map<string, Set<Follower>>();
  let timer: NodeJS.Timeout | undefined;
  let polling = false;
  let closed = false;

  async function poll() {
    if (polling || followers.size === 0) return;
    polling = true;
    try {
      const rows = await sql<{ id: string; version: number; status: string }[]>`
        select id, version, status from payments where id = any(${[...followers.keys()]}::uuid[])`;
      for (const row of rows) {
        for (const follower of followers.get(row.id) ?? []) {
          if (row.version <= follower.version) continue;
          follower.version = row.version;
          follower.onChange({ version: row.version, status: row.status });
        }
      }
    } catch (err) {
      // The next interval tries again; a stream waits a little longer meanwhile.
      log.warn({ err }, "reading followed payments failed");
    } finally {
      polling = false;
    }
  }

  function stopIfIdle() {
    if (followers.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  }

  return {
    follow(paymentId, version, onChange, onClose) {
      // A stream opened while the process stops would hold its server open for minutes.
      if (closed) {
        queueMicrotask(onClose);
        return () => {};
      }
      const follower: Follower = { version, onChange, onClose };
      let set = followers.get(paymentId);
      if (!set) {
        set = new Set();
        followers.set(paymentId, set);
      }
      set.add(follower);
      if (!timer) timer = setInterval(() => void poll(), intervalMs);
      return () => {
        set.delete(follower);
        if (set.size === 0 && followers.get(paymentId) === set) followers.delete(paymentId);
        stopIfIdle();
      };
    },
    close() {
      closed = true;
      const all = [...followers.values()].flatMap((set) => [...set]);
      followers.clear();
      stopIfIdle();
      for (const follower of all) follower.onClose();
    },
  };
}
