import v8 from "node:v8";
import vm from "node:vm";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, PublicKey } from "@solana/web3.js";
import { expect, it } from "vitest";
import { associatedTokenAddress } from "./solana.js";

v8.setFlagsFromString("--expose-gc");
const fullCollection = vm.runInNewContext("gc") as () => void;
const heapUsed = () => {
  fullCollection();
  return v8.getHeapStatistics().used_heap_size;
};

// The Solana watcher keeps each live deposit's token account for a day after its payment
// expires; base58 encoders build an address a character at a time, which V8 keeps as a tree of
// concatenations (over 1 kB for 44 characters) unless the string is flattened.
it("hands out token account addresses that cost about their length to keep", () => {
  const mint = Keypair.generate().publicKey;
  const owners = Array.from({ length: 400 }, () => Keypair.generate().publicKey.toBase58());
  // Warmed up, so the code and caches the first call creates are not counted.
  associatedTokenAddress(Keypair.generate().publicKey.toBase58(), mint.toBase58());
  heapUsed();
  const before = heapUsed();
  const kept = owners.map((owner) => associatedTokenAddress(owner, mint.toBase58()));
  const perAddress = (heapUsed() - before) / kept.length;
  // Flat: about 70 bytes a string, plus each cache entry's key and PublicKey (bounded).
  expect(perAddress).toBeLessThan(700);
  expect(kept[0]).toBe(getAssociatedTokenAddressSync(mint, new PublicKey(owners[0]!), true).toBase58());
});
