// What the signer remembers between restarts without a database: every intent id it has
// signed with the effect it had, and how much each refund/payout moved, in an append-only
// file next to the audit log. From it come replay protection and the per-day caps.

import { existsSync, readFileSync } from "node:fs";
import { RefusalCode } from "@gateway/signer-proto";
import { intentEffect, type SignerIntent } from "../intents/intent.js";
import { refuse } from "../refusal.js";
import { type AppendFile, openAppendFile } from "./append-file.js";

export interface AssetCap {
  perIntent: bigint;
  perDay: bigint;
}

/** Keys are "<chain>:<asset>" (asset as the signer spells it) or "<chain>:*" as a fallback. */
export type CapTable = Map<string, AssetCap>;

export interface IntentLedger {
  /**
   * Refuses a reused intent id with another effect and a refund/payout over its caps.
   * Returns whether the intent was already signed with this same effect.
   */
  check(intent: SignerIntent): { repeat: boolean };
  /** Records a first signing. Call only after `check` and before returning signatures. */
  record(intent: SignerIntent): void;
  sync(): Promise<void>;
  close(): void;
}

interface LedgerLine {
  id: string;
  effect: string;
  day: string;
  moved?: { key: string; amount: string };
}

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function openIntentLedger(
  path: string,
  caps: CapTable,
  now: () => Date = () => new Date(),
): IntentLedger {
  const effects = new Map<string, string>();
  const dayTotals = new Map<string, bigint>();
  const addTotal = (day: string, key: string, amount: bigint) => {
    const id = `${day}|${key}`;
    dayTotals.set(id, (dayTotals.get(id) ?? 0n) + amount);
  };
  if (existsSync(path)) {
    for (const raw of readFileSync(path, "utf8").split("\n")) {
      if (raw.length === 0) continue;
      const line = JSON.parse(raw) as LedgerLine;
      effects.set(line.id, line.effect);
      if (line.moved) addTotal(line.day, line.moved.key, BigInt(line.moved.amount));
    }
  }
  const file: AppendFile = openAppendFile(path);

  const capFor = (intent: SignerIntent) =>
    caps.get(`${intent.chain}:${intent.asset}`) ?? caps.get(`${intent.chain}:*`);
  const totalKey = (intent: SignerIntent) => `${intent.chain}:${intent.mode}:${intent.asset}`;

  return {
    check(intent) {
      const effect = intentEffect(intent);
      const seen = effects.get(intent.intentId);
      if (seen !== undefined) {
        if (seen !== effect) refuse(RefusalCode.REPLAY, "intent id was signed before for another effect");
        return { repeat: true };
      }
      if (intent.action.kind !== "sweep") {
        const cap = capFor(intent);
        if (!cap)
          refuse(RefusalCode.INTENT_CAP_EXCEEDED, `no cap is configured for ${intent.chain}:${intent.asset}`);
        if (intent.amount > cap.perIntent)
          refuse(RefusalCode.INTENT_CAP_EXCEEDED, "amount is over the per-intent cap");
        const today = dayTotals.get(`${utcDay(now())}|${totalKey(intent)}`) ?? 0n;
        if (today + intent.amount > cap.perDay)
          refuse(RefusalCode.DAILY_CAP_EXCEEDED, "today's total would pass the cap");
      }
      return { repeat: false };
    },
    record(intent) {
      const day = utcDay(now());
      const line: LedgerLine = { id: intent.intentId, effect: intentEffect(intent), day };
      if (intent.action.kind !== "sweep") {
        line.moved = { key: totalKey(intent), amount: intent.amount.toString() };
        addTotal(day, line.moved.key, intent.amount);
      }
      file.appendLine(JSON.stringify(line));
      effects.set(intent.intentId, line.effect);
    },
    sync: () => file.sync(),
    close: () => file.close(),
  };
}
