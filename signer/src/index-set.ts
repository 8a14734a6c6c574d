// The deposit indices handed out on one branch (a chain and a mode), one bit each. Indices come
// from PostgreSQL's sequence, so they are dense from 0: a Set spent 20–30 bytes on each, the only
// lasting cost of a test payment in the signer, where a bitmap spends an eighth of a byte.
//
// A request cannot make the bitmap large: it grows only to cover an index at most GROWTH_BITS past
// its end, so one request adds at most 2 × GROWTH_BITS / 8 bytes (16 KiB). An index farther out
// (the sequence never jumps so far; a wild or hostile caller might) is kept in a Set, as before.
const GROWTH_BITS = 1 << 16;

export class IndexSet {
  #bits = new Uint8Array(GROWTH_BITS / 8);
  readonly #far = new Set<number>();

  has(index: number): boolean {
    const byte = index >>> 3;
    if (byte < this.#bits.length) return (this.#bits[byte]! & (1 << (index & 7))) !== 0;
    return this.#far.has(index);
  }

  add(index: number): void {
    const end = this.#bits.length * 8;
    if (index >= end && index < end + GROWTH_BITS) this.#grow(index + 1 + GROWTH_BITS);
    const byte = index >>> 3;
    if (byte < this.#bits.length) this.#bits[byte]! |= 1 << (index & 7);
    else this.#far.add(index);
  }

  snapshot(): { bits: string; far: number[] } {
    return { bits: Buffer.from(this.#bits).toString("base64"), far: [...this.#far] };
  }

  static restore(state: { bits: string; far: number[] }): IndexSet {
    const set = new IndexSet();
    set.#bits = new Uint8Array(Buffer.from(state.bits, "base64"));
    for (const index of state.far) set.#far.add(index);
    return set;
  }

  /** Bytes held: the bitmap and, at about 30 bytes each, the indices kept apart. */
  bytes(): number {
    return this.#bits.length + this.#far.size * 30;
  }

  #grow(bits: number): void {
    const grown = new Uint8Array(Math.ceil(bits / 8));
    grown.set(this.#bits);
    this.#bits = grown;
    // Indices kept apart that the bitmap now covers move into it, where `has` looks for them.
    for (const index of this.#far) {
      if (index >>> 3 >= grown.length) continue;
      grown[index >>> 3]! |= 1 << (index & 7);
      this.#far.delete(index);
    }
  }
}
