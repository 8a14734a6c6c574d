// Solana's error shapes: transaction errors serialised as the validator's serde does
// ("BlockhashNotFound", {"InstructionError":[0,{"Custom":1}]}) and JSON-RPC error codes.
import type { FailedTransactionMetadata } from "litesvm";
// The error variant classes are not re-exported by litesvm's entry point.
import {
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
  TransactionErrorProgramExecutionTemporarilyRestricted,
} from "litesvm/dist/internal.js";

export type TransactionErrorJson = string | Record<string, unknown>;

// Order of litesvm's `TransactionErrorFieldless` and `InstructionErrorFieldless` const enums.
const TRANSACTION_ERRORS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
  "InvalidProgramForExecution",
  "SanitizeFailure",
  "ClusterMaintenance",
  "AccountBorrowOutstanding",
  "WouldExceedMaxBlockCostLimit",
  "UnsupportedVersion",
  "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks",
  "AddressLookupTableNotFound",
  "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex",
  "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit",
  "MaxLoadedAccountsDataSizeExceeded",
  "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit",
  "UnbalancedTransaction",
  "ProgramCacheHitMaxLimit",
  "CommitCancelled",
] as const;

const INSTRUCTION_ERRORS = [
  "GenericError",
  "InvalidArgument",
  "InvalidInstructionData",
  "InvalidAccountData",
  "AccountDataTooSmall",
  "InsufficientFunds",
  "IncorrectProgramId",
  "MissingRequiredSignature",
  "AccountAlreadyInitialized",
  "UninitializedAccount",
  "UnbalancedInstruction",
  "ModifiedProgramId",
  "ExternalAccountLamportSpend",
  "ExternalAccountDataModified",
  "ReadonlyLamportChange",
  "ReadonlyDataModified",
  "DuplicateAccountIndex",
  "ExecutableModified",
  "RentEpochModified",
  "NotEnoughAccountKeys",
  "AccountDataSizeChanged",
  "AccountNotExecutable",
  "AccountBorrowFailed",
  "AccountBorrowOutstanding",
  "DuplicateAccountOutOfSync",
  "InvalidError",
  "ExecutableDataModified",
  "ExecutableLamportChange",
  "ExecutableAccountNotRentExempt",
  "UnsupportedProgramId",
  "CallDepth",
  "MissingAccount",
  "ReentrancyNotAllowed",
  "MaxSeedLengthExceeded",
  "InvalidSeeds",
  "InvalidRealloc",
  "ComputationalBudgetExceeded",
  "PrivilegeEscalation",
  "ProgramEnvironmentSetupFailure",
  "ProgramFailedToComplete",
  "ProgramFailedToCompile",
  "Immutable",
  "IncorrectAuthority",
  "AccountNotRentExempt",
  "InvalidAccountOwner",
  "ArithmeticOverflow",
  "UnsupportedSysvar",
  "IllegalOwner",
  "MaxAccountsDataAllocationsExceeded",
  "MaxAccountsExceeded",
  "MaxInstructionTraceLengthExceeded",
  "BuiltinProgramsMustConsumeComputeUnits",
  "BorshIoError",
] as const;

// The validator's Display strings for the errors a payment flow meets.
const TRANSACTION_ERROR_TEXT: Record<string, string> = {
  AccountInUse: "Account in use",
  AccountLoadedTwice: "Account loaded twice",
  AccountNotFound: "Attempt to debit an account but found no record of a prior credit.",
  ProgramAccountNotFound: "Attempt to load a program that does not exist",
  InsufficientFundsForFee: "Insufficient funds for fee",
  InvalidAccountForFee: "This account may not be used to pay transaction fees",
  AlreadyProcessed: "This transaction has already been processed",
  BlockhashNotFound: "Blockhash not found",
  SignatureFailure: "Transaction did not pass signature verification",
  SanitizeFailure: "Transaction failed to sanitize accounts offsets correctly",
  MissingSignatureForFee: "Transaction requires a fee but has no signature present",
  InvalidRentPayingAccount: "Transaction leaves an account with a lower balance than rent-exempt minimum",
  UnsupportedVersion: "Transaction version is unsupported",
};

const INSTRUCTION_ERROR_TEXT: Record<string, string> = {
  GenericError: "generic instruction error",
  InvalidArgument: "invalid program argument",
  InvalidInstructionData: "invalid instruction data",
  InvalidAccountData: "invalid account data for instruction",
  AccountDataTooSmall: "account data too small for instruction",
  InsufficientFunds: "insufficient funds for instruction",
  IncorrectProgramId: "incorrect program id for instruction",
  MissingRequiredSignature: "missing required signature for instruction",
  AccountAlreadyInitialized: "instruction requires an uninitialized account",
  UninitializedAccount: "instruction requires an initialized account",
  IllegalOwner: "Provided owner is not allowed",
  NotEnoughAccountKeys: "insufficient account keys for instruction",
  ComputationalBudgetExceeded: "Computational budget exceeded",
};

function instructionErrorJson(err: unknown): string | Record<string, unknown> {
  if (typeof err === "number") return INSTRUCTION_ERRORS[err] ?? "InvalidError";
  if (err !== null && typeof err === "object" && "code" in err && typeof err.code === "number") {
    return { Custom: err.code };
  }
  if (err !== null && typeof err === "object" && "msg" in err) return { BorshIoError: String(err.msg) };
  return "InvalidError";
}

export function transactionErrorJson(failed: FailedTransactionMetadata): TransactionErrorJson {
  const err = failed.err();
  if (typeof err === "number") return TRANSACTION_ERRORS[err] ?? "SanitizeFailure";
  if (err instanceof TransactionErrorInstructionError) {
    return { InstructionError: [err.index, instructionErrorJson(err.err())] };
  }
  if (err instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: err.index };
  if (err instanceof TransactionErrorInsufficientFundsForRent) {
    return { InsufficientFundsForRent: { account_index: err.accountIndex } };
  }
  if (err instanceof TransactionErrorProgramExecutionTemporarilyRestricted) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: err.accountIndex } };
  }
  return "SanitizeFailure";
}

export function transactionErrorText(err: TransactionErrorJson): string {
  if (typeof err === "string") return TRANSACTION_ERROR_TEXT[err] ?? err;
  const instruction = err["InstructionError"];
  if (Array.isArray(instruction)) {
    const [index, inner] = instruction as [number, unknown];
    let text: string;
    if (typeof inner === "string") text = INSTRUCTION_ERROR_TEXT[inner] ?? inner;
    else if (inner && typeof inner === "object" && "Custom" in inner) {
      text = `custom program error: 0x${Number(inner.Custom).toString(16)}`;
    } else text = JSON.stringify(inner);
    return `Error processing Instruction ${index}: ${text}`;
  }
  if ("InsufficientFundsForRent" in err) {
    const info = err["InsufficientFundsForRent"] as { account_index: number };
    return `Transaction results in an account (${info.account_index}) with insufficient funds for rent`;
  }
  return JSON.stringify(err);
}

/** JSON-RPC error codes the Solana validator uses. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Preflight simulation failed (data carries err and logs). */
  sendTransactionPreflightFailure: -32002,
  /** getTransaction on a v0 transaction without maxSupportedTransactionVersion. */
  unsupportedTransactionVersion: -32015,
  /** A commitment below `confirmed` where the method needs at least that. */
  invalidCommitment: -32602,
} as const;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

export function invalidParams(message: string): RpcError {
  return new RpcError(RpcCode.invalidParams, message);
}
