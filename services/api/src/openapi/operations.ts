// Every operation the API serves, in the order the document lists them. A test checks that the
// app mounts exactly these, so an operation cannot be served undocumented.
import { dashboardOperations } from "../dashboard/api/index.js";
import type { OperationSpec } from "../http/operation.js";
import { apiKeyOperations } from "../routes/api-keys/index.js";
import { auditLogOperations } from "../routes/audit-log/index.js";
import { authOperations } from "../routes/auth/index.js";
import { checkoutOperations } from "../routes/checkout/index.js";
import { eventOperations } from "../routes/events/index.js";
import { exportOperations } from "../routes/exports/index.js";
import { healthOperations } from "../routes/health.js";
import { paymentLinkOperations } from "../routes/payment-links/index.js";
import { paymentOperations } from "../routes/payments/index.js";
import { payoutDestinationOperations } from "../routes/payout-destinations/index.js";
import { payoutWalletOperations } from "../routes/payout-wallets/index.js";
import { payoutOperations } from "../routes/payouts/index.js";
import { sessionOperations } from "../routes/sessions/index.js";
import { solanaPayOperations } from "../routes/solana-pay/index.js";
import { teamOperations } from "../routes/team/index.js";
import { webhookOperations } from "../routes/webhooks/index.js";

export const OPERATIONS: readonly OperationSpec[] = [
  ...paymentOperations,
  ...checkoutOperations,
  ...healthOperations,
  ...authOperations,
  ...apiKeyOperations,
  ...payoutDestinationOperations,
  ...payoutWalletOperations,
  ...dashboardOperations,
  ...webhookOperations,
  ...payoutOperations,
  ...teamOperations,
  ...sessionOperations,
  ...auditLogOperations,
  ...solanaPayOperations,
  ...paymentLinkOperations,
  ...eventOperations,
  ...exportOperations,
];
