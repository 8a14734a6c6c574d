// Where each entry of the live segment starts in its file, by sequence number: 8 bytes an entry,
// in one growing typed array, so any entry's hash can be read back without a scan.
export class EntryOffsets {
  #offsets = new Float64Array(1024);
  #size = 0;

  /** `first`: the sequence number of the segment's first line. */
  constructor(readonly first: number) {}

  get size(): number {
    return this.#size;
  }

  push(offset: number): void {
    if (this.#size === this.#offsets.length) {
      const grown = new Float64Array(this.#offsets.length * 2);
      grown.set(this.#offsets);
      this.#offsets = grown;
    }
    this.#offsets[this.#size++] = offset;
  }

  /** The offset of entry `seq`, if it is in this segment. */
  at(seq: number): number | undefined {
    const i = seq - this.first;
    return i >= 0 && i < this.#size ? this.#offsets[i] : undefined;
  }
}
