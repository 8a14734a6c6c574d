import { applyPaymentMessages, type PaymentActorDeps } from "@gateway/payments";

export interface ExpirySweeper {
  stop(): Promise<void>;
  /** Expires every payment due now; returns how many were handled. */
  sweepOnce(): Promise<number>;
}

/**
 * Expiry is read from `expires_at` in PostgreSQL on every tick, never from in-memory timers, so a
 * restart or a crash loses no deadline. Replicas lock disjoint rows (SKIP LOCKED). Payments that
 * reached expiry while a seen transfer is still finalising keep status `confirming` with
 * `expiryReached` set; they are not picked again.
 */
export function startExpirySweeper(deps: PaymentActorDeps, pollMs: number): ExpirySweeper {
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> = Promise.resolve();

  async function sweepOnce(): Promise<number> {
    let handled = 0;
    for (;;) {
      const batch = (await deps.sql.begin(async (tx) => {
        const due = await tx<{ id: string }[]>`
          select id from payments
          where status in ('pending', 'confirming') and expires_at <= now()
            and not coalesce((state->>'expiryReached')::boolean, false)
          order by expires_at limit 50 for update skip locked`;
        // The whole batch in the actor's fixed number of statements, as settlement applies its messages.
        const now = Date.now();
        await applyPaymentMessages(
          deps,
          tx,
          due.map(({ id }) => ({ paymentId: id, message: { type: "expire", now } as const })),
        );
        return due.length;
      })) as number;
      handled += batch;
      if (batch < 50) break;
    }
    return handled + (await endQuotes());
  }

  /**
   * Quotes end like payments expire: read from PostgreSQL on every tick. The actor refuses a
   * message that names another quote (the customer took a fresh one); the column is then stale
   * and is cleared so the row is not picked again.
   */
  async function endQuotes(): Promise<number> {
    let handled = 0;
    for (;;) {
      const batch = (await deps.sql.begin(async (tx) => {
        const due = await tx<{ id: string; quote_expires_at: Date }[]>`
          select id, quote_expires_at from payments
          where quote_expires_at <= now() and status in ('pending', 'confirming')
          order by quote_expires_at limit 50 for update skip locked`;
        const now = Date.now();
        const applied = await applyPaymentMessages(
          deps,
          tx,
          due.map(({ id, quote_expires_at }) => ({
            paymentId: id,
            message: { type: "quote_expire", expiresAt: quote_expires_at.getTime(), now } as const,
          })),
        );
        const stale = due.filter((_, i) => applied[i]?.decision.rejected);
        // Rows this transaction holds locked, and a refused message changed nothing on them.
        if (stale.length > 0) {
          await tx`update payments set quote_expires_at = null where id = any(${stale.map((d) => d.id)}::uuid[])`;
        }
        return due.length;
      })) as number;
      handled += batch;
      if (batch < 50) return handled;
    }
  }

  const tick = async () => {
    if (!running) return;
    current = sweepOnce().catch((err) => deps.log.warn({ err }, "expiry sweep failed; will retry"));
    await current;
    if (running) timer = setTimeout(tick, pollMs);
  };
  timer = setTimeout(tick, 0);

  return {
    sweepOnce,
    async stop() {
      running = false;
      clearTimeout(timer);
      await current;
    },
  };
}
