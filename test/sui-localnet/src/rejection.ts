/**
 * Why the network refused a transaction before executing it (nothing changed, no gas charged).
 * The names follow Sui's own `UserInputError` / `SuiError` variants so messages read the same.
 */
export type RejectionReason =
  | "InvalidTransactionBytes"
  | "UnsupportedFeature"
  | "SignatureMismatch"
  | "InvalidSignature"
  | "ObjectNotFound"
  | "ObjectVersionUnavailableForConsumption"
  | "InvalidObjectDigest"
  | "IncorrectUserSignature"
  | "DuplicateObjectRefInput"
  | "MissingGasPayment"
  | "GasObjectNotOwnedObject"
  | "InvalidGasObject"
  | "GasPriceUnderRGP"
  | "GasBudgetTooLow"
  | "GasBalanceTooLow"
  | "AddressDeniedForCoin";

export class TransactionRejected extends Error {
  override readonly name = "TransactionRejected";
  constructor(
    readonly reason: RejectionReason,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}
