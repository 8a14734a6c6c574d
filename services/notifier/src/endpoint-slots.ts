/** Attempts in flight per endpoint, so that one slow endpoint holds at most `limit` of the worker's slots. */
export class EndpointSlots {
  readonly #limit: number;
  readonly #inUse = new Map<string, number>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  get limit(): number {
    return this.#limit;
  }

  inUse(endpointId: string): number {
    return this.#inUse.get(endpointId) ?? 0;
  }

  take(endpointId: string): void {
    this.#inUse.set(endpointId, this.inUse(endpointId) + 1);
  }

  give(endpointId: string): void {
    const left = (this.#inUse.get(endpointId) ?? 1) - 1;
    if (left === 0) this.#inUse.delete(endpointId);
    else this.#inUse.set(endpointId, left);
  }

  /** Endpoints at their limit, whose deliveries a claim passes over. */
  full(): string[] {
    return [...this.#inUse].filter(([, n]) => n >= this.#limit).map(([id]) => id);
  }
}
