// How often each deposit key was swept (first signings), per chain and mode: one byte a deposit
// index in a growing array, since indices are dense from 0, and a Map for indices far past its
// end (a wild caller), as IndexSet does for the indices handed out.
const GROWTH = 1 << 16;

export interface DepositCountsSnapshot {
  branch: string;
  dense: string;
  far: [number, number][];
}

class BranchCounts {
  dense = new Uint8Array(GROWTH);
  readonly far = new Map<number, number>();

  get(index: number): number {
    return index < this.dense.length ? this.dense[index]! : (this.far.get(index) ?? 0);
  }

  add(index: number): void {
    if (index >= this.dense.length && index < this.dense.length + GROWTH) {
      const grown = new Uint8Array(index + 1 + GROWTH);
      grown.set(this.dense);
      this.dense = grown;
      for (const [i, n] of this.far) {
        if (i >= grown.length) continue;
        grown[i] = Math.min(255, n);
        this.far.delete(i);
      }
    }
    // Counts stop at 255: the bound on sweeps per deposit is far below it.
    if (index < this.dense.length) this.dense[index] = Math.min(255, this.dense[index]! + 1);
    else this.far.set(index, (this.far.get(index) ?? 0) + 1);
  }
}

export class DepositCounts {
  readonly #branches = new Map<string, BranchCounts>();
  /** Deposits swept at least once, kept as they are first swept (the metrics read it). */
  #swept = 0;

  /** `key`: "<chain>:<mode>:<deposit index>". */
  get(key: string): number {
    const [branch, index] = split(key);
    return this.#branches.get(branch)?.get(index) ?? 0;
  }

  add(key: string): void {
    const [branch, index] = split(key);
    const counts = this.#branches.get(branch) ?? new BranchCounts();
    this.#branches.set(branch, counts);
    if (counts.get(index) === 0) this.#swept += 1;
    counts.add(index);
  }

  /** Deposits swept at least once. */
  size(): number {
    return this.#swept;
  }

  snapshot(): DepositCountsSnapshot[] {
    return [...this.#branches].map(([branch, c]) => ({
      branch,
      dense: Buffer.from(c.dense.buffer, c.dense.byteOffset, c.dense.byteLength).toString("base64"),
      far: [...c.far],
    }));
  }

  static restore(snapshot: DepositCountsSnapshot[]): DepositCounts {
    const counts = new DepositCounts();
    for (const { branch, dense, far } of snapshot) {
      const c = new BranchCounts();
      c.dense = new Uint8Array(Buffer.from(dense, "base64"));
      for (const [i, n] of far) c.far.set(i, n);
      counts.#branches.set(branch, c);
      for (const n of c.dense) if (n > 0) counts.#swept += 1;
      counts.#swept += c.far.size;
    }
    return counts;
  }
}

function split(key: string): [string, number] {
  const cut = key.lastIndexOf(":");
  return [key.slice(0, cut), Number(key.slice(cut + 1))];
}
