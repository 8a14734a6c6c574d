// A payment link's behaviour as a pure decider, in the payment's shape
// (packages/domain/src/payment.ts): `decide(state, message)` over a handler table the compiler
// checks, whose effects the rows (link-rows.ts) carry out in the same transaction.
import { assertNever, type Currency, type Mode } from "@gateway/domain";

export interface PaymentLinkState {
  id: string;
  merchantId: string;
  mode: Mode;
  currency: Currency;
  /** In `currency` base units. */
  amount: bigint;
  description: string | null;
  redirectUrl: string | null;
  active: boolean;
}

export type PaymentLinkMessage =
  /** A customer opened the link: `paymentId` is the payment to make for them. */
  { type: "open"; paymentId: string } | { type: "deactivate" };

export type PaymentLinkEffect = {
  type: "create_payment";
  paymentId: string;
  currency: Currency;
  amount: bigint;
  description: string | null;
  redirectUrl: string | null;
};

export interface PaymentLinkDecision {
  state: PaymentLinkState;
  effects: PaymentLinkEffect[];
  /** Why nothing happened, when the message cannot apply; the state is then unchanged. */
  rejected?: "inactive";
}

type Handlers = {
  [T in PaymentLinkMessage["type"]]: (
    state: PaymentLinkState,
    message: Extract<PaymentLinkMessage, { type: T }>,
  ) => PaymentLinkDecision;
};

const handlers: Handlers = {
  open: (state, message) =>
    state.active
      ? {
          state,
          effects: [
            {
              type: "create_payment",
              paymentId: message.paymentId,
              currency: state.currency,
              amount: state.amount,
              description: state.description,
              redirectUrl: state.redirectUrl,
            },
          ],
        }
      : { state, effects: [], rejected: "inactive" },
  // Deactivating twice is the same as once: a retried request finds what it asked for.
  deactivate: (state) => ({ state: { ...state, active: false }, effects: [] }),
};

export function decide(state: PaymentLinkState, message: PaymentLinkMessage): PaymentLinkDecision {
  switch (message.type) {
    case "open":
      return handlers.open(state, message);
    case "deactivate":
      return handlers.deactivate(state, message);
    default:
      return assertNever(message);
  }
}
