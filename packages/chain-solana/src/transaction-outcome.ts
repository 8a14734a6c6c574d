// What the chain says of a signed transaction: whether it can still land (settlement's retries,
// intent-runner.ts) and what became of it (the runbook after a restore of the database,
// packages/restore, after-restore.ts).
import type { TransactionOutcome } from "@gateway/contracts";
import { type Connection, Message, SystemProgram } from "@solana/web3.js";
import bs58 from "bs58";
import { nonceValue } from "./nonce-pool.js";

/** The durable nonce a message spends (its first instruction advances it), if any. */
export function nonceOf(message: Uint8Array): { account: string; value: string } | undefined {
  return nonceIn(Message.from(message));
}

function nonceIn(parsed: Message): { account: string; value: string } | undefined {
  const first = parsed.instructions[0];
  if (!first || !parsed.accountKeys[first.programIdIndex]?.equals(SystemProgram.programId)) return undefined;
  const data = bs58.decode(first.data);
  if (data.length !== 4 || data[0] !== 4) return undefined;
  const account = parsed.accountKeys[first.accounts[0] ?? -1];
  return account ? { account: account.toBase58(), value: parsed.recentBlockhash } : undefined;
}

/** What keeps a signed message able to land: its durable nonce's value, or its recent blockhash. */
export type LandingCondition = { nonce: { account: string; value: string } } | { blockhash: string };

export function landingCondition(message: Uint8Array): LandingCondition {
  const parsed = Message.from(message);
  const nonce = nonceIn(parsed);
  return nonce ? { nonce } : { blockhash: parsed.recentBlockhash };
}

/** One text per condition: messages that share it can still land, or not, together. */
export const conditionKey = (condition: LandingCondition) =>
  "nonce" in condition
    ? `nonce:${condition.nonce.account}:${condition.nonce.value}`
    : `blockhash:${condition.blockhash}`;

/**
 * Whether a message under this condition can still land: its durable nonce still holds the value
 * it spends, or its blockhash is still valid. Nonce values are read at `confirmed`, as when leased:
 * a value never comes back, so a confirmed value other than the message's means the nonce moved
 * past it.
 */
export async function conditionHolds(connection: Connection, condition: LandingCondition): Promise<boolean> {
  if ("nonce" in condition)
    return (await nonceValue(connection, condition.nonce.account, "confirmed")) === condition.nonce.value;
  return (await connection.isBlockhashValid(condition.blockhash, { commitment: "processed" })).value;
}

/** Whether a signed message can still land (`conditionHolds` of its condition). */
export async function canStillLand(connection: Connection, message: Uint8Array): Promise<boolean> {
  return conditionHolds(connection, landingCondition(message));
}

/**
 * `signature`: the fee payer's, the transaction's id; `message`: what was signed. Only a finalized
 * status counts. Whether the transaction can still land is read before its status: if it could
 * not at that moment (its durable nonce moved on, or its blockhash expired) and the status read
 * afterwards does not show it, it never will.
 */
export async function solanaTransactionOutcome(
  connection: Connection,
  signature: string,
  message: Uint8Array,
): Promise<TransactionOutcome> {
  const alive = await canStillLand(connection, message);
  const { value } = await connection.getSignatureStatuses([signature], { searchTransactionHistory: true });
  const status = value[0];
  if (status?.confirmationStatus === "finalized") return status.err ? "failed" : "succeeded";
  return status || alive ? "pending" : "never";
}
