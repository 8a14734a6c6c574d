// The words the checkout shows for the contracts' closed lists. Each table is keyed by the whole
// list, so a refund reason added to the contracts does not compile until it has words here;
// contracts-drift.test.ts checks the same at run time. Chains are named by their labels (@gateway/chains/labels).
import { CHAIN_LABELS } from "@gateway/chains/labels";
import type { Chain, PaymentStatus, RefundReason } from "@gateway/contracts";
import type { MessageKey } from "../i18n/en.js";

export const REFUND_REASON_LABELS: Record<RefundReason, MessageKey> = {
  underpayment: "refundUnderpayment",
  overpayment: "refundOverpayment",
  late: "refundLate",
};

/** Statuses after which nothing changes any more. */
export const FINAL_STATUSES = [
  "completed",
  "refunded",
  "expired",
  "failed",
] as const satisfies readonly PaymentStatus[];

export function isFinal(status: PaymentStatus): boolean {
  return (FINAL_STATUSES as readonly PaymentStatus[]).includes(status);
}

export function chainName(chain: Chain): string {
  return CHAIN_LABELS[chain]?.name ?? chain;
}

/** `m:ss`, or `h:mm:ss` from an hour up; never below zero. */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(h > 0 ? 2 : 1, "0");
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}
