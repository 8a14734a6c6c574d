// Funds addresses with real transactions: a faucet key holding the genesis treasury splits the
// requested amount off its coin and transfers it, so the credit lands in a checkpoint with
// balance changes like any other payment.
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Inputs, Transaction } from "@mysten/sui/transactions";
import { fromBase64, normalizeSuiAddress } from "@mysten/sui/utils";
import { blake2b } from "@noble/hashes/blake2.js";
import type { CoinSymbol } from "./coins.js";
import type { Ledger, TransactionRecord } from "./ledger.js";

export interface FaucetGrant {
  digest: string;
  owner: string;
  coinType: string;
  amount: bigint;
  /** The coin object created for the owner. */
  coin: { objectId: string; version: string; digest: string };
}

export interface Faucet {
  address: string;
  fund(owner: string, symbol: CoinSymbol, amount: bigint): Promise<FaucetGrant>;
}

export function faucetKeypair(seed: string): Ed25519Keypair {
  return Ed25519Keypair.fromSecretKey(blake2b(new TextEncoder().encode(`${seed}:faucet`), { dkLen: 32 }));
}

export function createFaucet(ledger: Ledger, keypair: Ed25519Keypair): Faucet {
  const address = keypair.toSuiAddress();
  const suiType = ledger.coins.bySymbol("SUI").coinType;
  // Each grant spends the faucet's current coin versions, so grants run one at a time.
  let queue: Promise<unknown> = Promise.resolve();

  const grant = async (owner: string, symbol: CoinSymbol, amount: bigint): Promise<FaucetGrant> => {
    if (amount <= 0n) throw new Error("amount must be positive");
    const recipient = normalizeSuiAddress(owner);
    const coinType = ledger.coins.bySymbol(symbol).coinType;
    const gas = ledger.ownedCoins(address, suiType)[0];
    const treasury = ledger.ownedCoins(address, coinType)[0];
    if (!gas || !treasury) throw new Error("the faucet treasury is empty");
    const tx = new Transaction();
    tx.setSender(address);
    tx.setGasPrice(ledger.referenceGasPrice);
    tx.setGasBudget(ledger.referenceGasPrice * ledger.computationUnits);
    tx.setGasPayment([{ objectId: gas.objectId, version: gas.version.toString(), digest: gas.digest }]);
    const source =
      symbol === "SUI"
        ? tx.gas
        : tx.object(
            Inputs.ObjectRef({
              objectId: treasury.objectId,
              version: treasury.version.toString(),
              digest: treasury.digest,
            }),
          );
    const [coin] = tx.splitCoins(source, [tx.pure.u64(amount)]);
    tx.transferObjects([coin!], tx.pure.address(recipient));
    const bytes = await tx.build();
    const { signature } = await keypair.signTransaction(bytes);
    const record: TransactionRecord = await ledger.execute(bytes, [fromBase64(signature)]);
    if (record.outcome.failure) throw new Error(`faucet transaction failed: ${record.outcome.failure.kind}`);
    const created = record.outcome.changes.find((change) => change.idOperation === "Created")?.output;
    if (!created) throw new Error("faucet transaction created no coin");
    return {
      digest: record.digest,
      owner: recipient,
      coinType,
      amount,
      coin: { objectId: created.objectId, version: created.version.toString(), digest: created.digest },
    };
  };

  return {
    address,
    fund(owner, symbol, amount) {
      const next = queue.then(() => grant(owner, symbol, amount));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
