// Every intent id bound before the newest checkpoint, as fixed-size records in one buffer sorted
// by the id's hash: 64 bytes an intent and no object per intent, so they load in one read. A record names where the intent's audit entry is (its sequence number and
// byte in its segment) and that entry's hash, so the bound transaction is read back and checked.
import { hash } from "node:crypto";

const ID = 16;
const RECORD = 64; // id hash 16 | seq 8 | offset 8 | entry hash 32

export interface IndexedPlace {
  seq: number;
  offset: number;
  hash: string;
}

const idHash = (intentId: string) => hash("sha256", intentId, "buffer").subarray(0, ID);

export class IntentIndex {
  readonly #records: Buffer;

  constructor(records: Buffer = Buffer.alloc(0)) {
    if (records.length % RECORD !== 0) throw new Error("intent index: a partial record");
    this.#records = records;
  }

  get size(): number {
    return this.#records.length / RECORD;
  }

  get bytes(): Buffer {
    return this.#records;
  }

  find(intentId: string): IndexedPlace | undefined {
    const key = idHash(intentId);
    let [low, high] = [0, this.size - 1];
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const at = mid * RECORD;
      // The record's id hash against the one looked for.
      const order = this.#records.compare(key, 0, ID, at, at + ID);
      if (order === 0) return this.#place(at);
      if (order < 0) low = mid + 1;
      else high = mid - 1;
    }
    return undefined;
  }

  /** A new index holding this one's records and `added` (intent id → place), still sorted. */
  merged(added: Iterable<[string, IndexedPlace]>): IntentIndex {
    const fresh = [...added].map(([id, place]) => IntentIndex.#record(id, place));
    fresh.sort((a, b) => a.compare(b, 0, ID, 0, ID));
    const out = Buffer.allocUnsafe(this.#records.length + fresh.length * RECORD);
    let [i, j, o] = [0, 0, 0];
    while (i < this.#records.length || j < fresh.length) {
      const next = fresh[j];
      const takeOld =
        i < this.#records.length && (!next || this.#records.compare(next, 0, ID, i, i + ID) < 0);
      if (takeOld) {
        this.#records.copy(out, o, i, i + RECORD);
        i += RECORD;
      } else {
        next!.copy(out, o);
        j += 1;
      }
      o += RECORD;
    }
    return new IntentIndex(out);
  }

  static #record(intentId: string, place: IndexedPlace): Buffer {
    const record = Buffer.alloc(RECORD);
    idHash(intentId).copy(record, 0);
    record.writeDoubleBE(place.seq, ID);
    record.writeDoubleBE(place.offset, ID + 8);
    Buffer.from(place.hash, "hex").copy(record, ID + 16);
    return record;
  }

  #place(at: number): IndexedPlace {
    return {
      seq: this.#records.readDoubleBE(at + ID),
      offset: this.#records.readDoubleBE(at + ID + 8),
      hash: this.#records.toString("hex", at + ID + 16, at + RECORD),
    };
  }
}
