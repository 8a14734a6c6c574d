// The transaction a Solana Pay transaction request answers: built here from what the chain says
// through its RPC node, with the payer as fee payer and no signature of ours. The wallet signs it.
import { type Coin, DECIMALS } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import {
  ACCOUNT_SIZE,
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  unpackAccount,
} from "@solana/spl-token";
import { type Connection, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import type { SolanaMints } from "../../deps.js";
import { amountText } from "./payable.js";

/** The network's fee for a transaction with one signature, in lamports. */
const SIGNATURE_FEE = 5000n;

export interface PayerTransfer {
  payer: PublicKey;
  /** The deposit address (the owner of its token account for USDC/USDT). */
  recipient: string;
  coin: Coin;
  amount: bigint;
}

/**
 * The payer's unsigned transfer of exactly `amount` to the deposit address (base64); a payer who
 * cannot pay is told so before the wallet asks them to sign (docs/solana.md).
 */
export async function payerTransaction(
  connection: Connection,
  mints: SolanaMints,
  transfer: PayerTransfer,
): Promise<string> {
  const recipient = new PublicKey(transfer.recipient);
  const instructions =
    transfer.coin === "SOL"
      ? await solInstructions(connection, transfer, recipient)
      : await tokenInstructions(connection, mints, transfer, recipient);
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
  const tx = new Transaction({ feePayer: transfer.payer, blockhash, lastValidBlockHeight }).add(
    ...instructions,
  );
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64");
}

async function solInstructions(connection: Connection, transfer: PayerTransfer, recipient: PublicKey) {
  const lamports = BigInt(await connection.getBalance(transfer.payer, "confirmed"));
  if (lamports < transfer.amount + SIGNATURE_FEE)
    throw short(
      `This wallet holds ${amountText(lamports, "SOL")}; the payment needs ${amountText(transfer.amount, "SOL")} and the network fee.`,
    );
  return [
    SystemProgram.transfer({ fromPubkey: transfer.payer, toPubkey: recipient, lamports: transfer.amount }),
  ];
}

async function tokenInstructions(
  connection: Connection,
  mints: SolanaMints,
  transfer: PayerTransfer,
  recipient: PublicKey,
) {
  const coin = transfer.coin as keyof SolanaMints;
  const mint = new PublicKey(mints[coin]);
  const source = getAssociatedTokenAddressSync(mint, transfer.payer);
  const destination = getAssociatedTokenAddressSync(mint, recipient, true);
  const [payerInfo, sourceInfo, destinationInfo] = await connection.getMultipleAccountsInfo(
    [transfer.payer, source, destination],
    "confirmed",
  );
  const held = sourceInfo ? unpackAccount(source, sourceInfo).amount : 0n;
  if (held < transfer.amount) {
    throw short(
      held === 0n
        ? `This wallet holds no ${coin}; the payment needs ${amountText(transfer.amount, coin)}.`
        : `This wallet holds ${amountText(held, coin)}; the payment needs ${amountText(transfer.amount, coin)}.`,
    );
  }
  const rent = destinationInfo
    ? 0n
    : BigInt(await connection.getMinimumBalanceForRentExemption(ACCOUNT_SIZE, "confirmed"));
  const lamports = BigInt(payerInfo?.lamports ?? 0);
  if (lamports < SIGNATURE_FEE + rent)
    throw short(
      `This wallet needs ${amountText(SIGNATURE_FEE + rent, "SOL")} for the network fee, and holds ${amountText(lamports, "SOL")}.`,
    );
  return [
    createAssociatedTokenAccountIdempotentInstruction(transfer.payer, destination, recipient, mint),
    createTransferCheckedInstruction(
      source,
      mint,
      destination,
      transfer.payer,
      transfer.amount,
      DECIMALS[coin],
    ),
  ];
}

function short(message: string): GatewayError {
  return new GatewayError("insufficient_balance", { param: "account", message });
}
