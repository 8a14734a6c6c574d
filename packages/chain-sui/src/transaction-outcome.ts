// What the chain says of a transaction by its digest and bytes, for settlement's retries and for
// the runbook after a restore of the database (packages/restore, after-restore.ts).
import type { TransactionOutcome } from "@gateway/contracts";
import { bcs } from "@mysten/sui/bcs";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { normalizeSuiAddress } from "@mysten/sui/utils";

export type SuiTransactionView = {
  digest: string;
  checkpoint?: string | null;
  status: { success: boolean; error?: unknown };
};

export type OwnedInput = { objectId: string; version: string };

/** The executed transaction, failed or not; undefined when the chain does not know the digest. */
export async function findSuiTransaction(
  client: SuiGrpcClient,
  digest: string,
): Promise<SuiTransactionView | undefined> {
  try {
    const result = await client.getTransaction({ digest });
    return (result.Transaction ?? result.FailedTransaction) as SuiTransactionView;
  } catch (err) {
    if ((err as { code?: string }).code === "NOT_FOUND" || /not found/i.test(String(err))) return undefined;
    throw err;
  }
}

/** The owned objects a transaction spends (coins and gas payment), at their versions. */
export function ownedInputs(bytes: Uint8Array): OwnedInput[] {
  const data = bcs.TransactionData.parse(bytes).V1;
  if (!data) return [];
  const refs = (data.kind.ProgrammableTransaction?.inputs ?? []).flatMap((input) =>
    input.Object?.ImmOrOwnedObject ? [input.Object.ImmOrOwnedObject] : [],
  );
  return [...refs, ...data.gasData.payment].map((r) => ({
    objectId: normalizeSuiAddress(r.objectId),
    version: String(r.version),
  }));
}

/**
 * Whether every owned input is still at the version the transaction spends: only then can it
 * still execute. Once one has moved on, a transaction the chain does not know never will be.
 */
export async function ownedInputsCurrent(client: SuiGrpcClient, inputs: OwnedInput[]): Promise<boolean> {
  const { objects } = await client.getObjects({ objectIds: inputs.map((i) => i.objectId) });
  return objects.every(
    (object, i) => !(object instanceof Error) && String(object.version) === inputs[i]!.version,
  );
}

/** Final on Sui means in a checkpoint. `bytes`: the transaction, to tell "not yet" from "never". */
export async function suiTransactionOutcome(
  client: SuiGrpcClient,
  digest: string,
  bytes: Uint8Array,
): Promise<TransactionOutcome> {
  const tx = await findSuiTransaction(client, digest);
  if (tx?.checkpoint !== undefined && tx.checkpoint !== null)
    return tx.status.success ? "succeeded" : "failed";
  if (tx) return "pending";
  return (await ownedInputsCurrent(client, ownedInputs(bytes))) ? "pending" : "never";
}
