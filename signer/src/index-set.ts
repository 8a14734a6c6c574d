// The deposit indices handed out on one branch, one bit each: they come dense from PostgreSQL's
// sequence. A request grows the bitmap at most GROWTH_BITS past its end (16 KiB); an index farther
// out, which only a wild or hostile caller sends, is kept in a Set.
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
