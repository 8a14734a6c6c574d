import { describe, expect, it } from "vitest";
import { IntentIndex } from "./intent-index.js";

describe("intent index", () => {
  it("finds every intent merged in, across merges, and no other", () => {
    let index = new IntentIndex();
    const places = new Map<string, { seq: number; offset: number; hash: string }>();
    for (let batch = 0; batch < 5; batch++) {
      const added: [string, { seq: number; offset: number; hash: string }][] = [];
      for (let i = 0; i < 400; i++) {
        const seq = batch * 400 + i + 1;
        const place = { seq, offset: seq * 517, hash: seq.toString(16).padStart(64, "0") };
        added.push([`sweep:${seq}`, place]);
        places.set(`sweep:${seq}`, place);
      }
      index = index.merged(added);
    }
    expect(index.size).toBe(2_000);
    for (const [id, place] of places) expect(index.find(id)).toEqual(place);
    expect(index.find("sweep:2001")).toBeUndefined();
    expect(new IntentIndex(Buffer.from(index.bytes)).find("sweep:1234")).toEqual(places.get("sweep:1234"));
  });
});
