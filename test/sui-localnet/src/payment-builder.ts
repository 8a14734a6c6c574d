// Builds fully specified payment transactions offline (no resolution round trips), the way our
// services build them; used by the pay command and the tests.
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { Inputs, Transaction } from "@mysten/sui/transactions";

export interface ObjectRef {
  objectId: string;
  version: string;
  digest: string;
}

export interface PaymentPlan {
  sender: string;
  /** Sponsor paying the gas; defaults to the sender. */
  gasOwner?: string;
  gasPayment: ObjectRef[];
  gasPrice: bigint;
  gasBudget: bigint;
  /** Coins of the paid type, merged into the first before splitting. Empty means pay in SUI from gas. */
  coins: ObjectRef[];
  amount: bigint;
  recipient: string;
}

/** Merge (if several coins), split `amount` off and transfer it: the shape of a customer payment. */
export async function buildPayment(plan: PaymentPlan): Promise<Uint8Array> {
  const tx = new Transaction();
  tx.setSender(plan.sender);
  if (plan.gasOwner) tx.setGasOwner(plan.gasOwner);
  tx.setGasPayment(plan.gasPayment);
  tx.setGasPrice(plan.gasPrice);
  tx.setGasBudget(plan.gasBudget);
  const [first, ...rest] = plan.coins.map((ref) => tx.object(Inputs.ObjectRef(ref)));
  const source = first ?? tx.gas;
  if (first && rest.length > 0) tx.mergeCoins(first, rest);
  const [paid] = tx.splitCoins(source, [tx.pure.u64(plan.amount)]);
  tx.transferObjects([paid!], tx.pure.address(plan.recipient));
  return tx.build();
}

export async function coinRefs(client: SuiGrpcClient, owner: string, coinType: string): Promise<ObjectRef[]> {
  const { objects } = await client.listCoins({ owner, coinType, limit: 1000 });
  return objects.map(({ objectId, version, digest }) => ({ objectId, version, digest }));
}
