// A checkpoint's state file: one line of JSON (the ledger's small parts, the rules' and the
// deposit indices' state), then the intent index's records as they are in memory, so a start
// reads a million intents in one read instead of parsing them.
import type { IssuedSnapshot } from "../addresses.js";
import type { LedgerSnapshot } from "../state/ledger.js";

export interface SignerSnapshot {
  ledger: LedgerSnapshot;
  rules: Record<string, unknown>;
  issued: IssuedSnapshot;
}

const FORMAT = 1;

export function encodeSnapshot({ ledger, rules, issued }: SignerSnapshot): Buffer {
  const { intents, ...rest } = ledger;
  const header = JSON.stringify({ format: FORMAT, ledger: rest, rules, issued, intentBytes: intents.length });
  return Buffer.concat([Buffer.from(`${header}\n`), intents]);
}

export function decodeSnapshot(bytes: Buffer): SignerSnapshot {
  const end = bytes.indexOf(10);
  const header = JSON.parse(bytes.toString("utf8", 0, end)) as Omit<SignerSnapshot, "ledger"> & {
    format: number;
    ledger: Omit<LedgerSnapshot, "intents">;
    intentBytes: number;
  };
  if (header.format !== FORMAT) throw new Error(`checkpoint state format ${header.format} is not ${FORMAT}`);
  const intents = bytes.subarray(end + 1);
  if (intents.length !== header.intentBytes) throw new Error("checkpoint state: the intent index is cut");
  return { ledger: { ...header.ledger, intents }, rules: header.rules, issued: header.issued };
}
