// What a refund intent carries to the signer so it can check the refund against the payment.
import type { RefundWork } from "@gateway/domain";

/**
 * The refund intent's attestation: the transfer as the watcher signed it, its addresses in the
 * chain's spelling (`spell`), or nothing when the work carries none.
 */
export function refundAttestation(
  work: RefundWork,
  spell: (address: string) => string = (address) => address,
) {
  const a = work.attestation;
  if (!a) return {};
  return {
    attestation: {
      keyId: a.keyId,
      signature: new Uint8Array(Buffer.from(a.signature, "base64")),
      transferId: a.transferId,
      depositAddress: spell(work.depositAddress),
      sender: spell(work.to),
      amount: a.transferAmount,
    },
  };
}
