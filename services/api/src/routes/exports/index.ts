import type { Mode } from "@gateway/contracts";
import { GatewayError } from "@gateway/errors";
import {
  LEDGER_EXPORT_COLUMNS,
  type LedgerExportRow,
  ledgerExportBatches,
  toLedgerExportRecord,
} from "@gateway/ledger";
import {
  PAYMENT_EXPORT_COLUMNS,
  type PaymentExportRow,
  paymentExportBatches,
  toPaymentExportRecord,
} from "@gateway/payments";
import {
  PAYOUT_EXPORT_COLUMNS,
  type PayoutRow,
  payoutExportBatches,
  toPayoutExportRecord,
} from "@gateway/payouts";
import { type RequestHandler, type Response, Router } from "express";
import { z } from "zod";
import { requireApiKey } from "../../auth/require-api-key.js";
import type { ApiDeps } from "../../deps.js";
import { modeField } from "../../http/fields.js";
import { authenticator, defineOperation, type Handler, mount } from "../../http/operation.js";
import { type CsvExport, type CsvSource, sendCsv } from "./csv-response.js";
import { exportRange, instantField } from "./export-range.js";

const query = z.object({
  from: instantField.meta({ description: "Inclusive, ISO 8601; 30 days before `to` by default." }),
  to: instantField.meta({
    description: "Exclusive, ISO 8601; now by default. At most 366 days after `from`.",
  }),
  mode: modeField.optional().meta({
    description: "Dashboard sessions: live (default) or test. An API key exports its own mode only.",
  }),
});

function exportOperation<const Name extends string>(name: Name, what: string) {
  return defineOperation({
    method: "get",
    path: `/exports/${name}.csv`,
    operationId: `export${name[0]!.toUpperCase()}${name.slice(1)}`,
    summary: `${what} created in a date range, oldest first, as CSV (RFC 4180, header row)`,
    auth: "apiKeyOrBearer",
    query,
    responses: { 200: { stream: "text/csv", description: "The CSV file, streamed." } },
    errors: { 403: "`mode` is not the API key's mode." },
  });
}

export const exportPaymentsOperation = exportOperation("payments", "Payments");
export const exportLedgerOperation = exportOperation(
  "ledger",
  "Balance movements of the merchant's accounts",
);
export const exportPayoutsOperation = exportOperation("payouts", "Payouts");
export const exportOperations = [
  exportPaymentsOperation,
  exportLedgerOperation,
  exportPayoutsOperation,
] as const;

/** A merchant's server with its key, or the dashboard with its session: whichever header came. */
function keyOrSession(deps: ApiDeps): RequestHandler {
  const key = requireApiKey(deps.sql);
  return authenticator((req, res, next) => {
    if (req.headers["x-api-key"] === undefined && req.headers.authorization !== undefined)
      return deps.sessions.require(req, res, next);
    return key(req, res, next);
  });
}

/** The merchant and mode to export: an API key's own, or the session's merchant in `mode`. */
function owner(res: Response, mode: Mode | undefined): { merchantId: string; mode: Mode } {
  const key = res.locals.apiKey as { merchantId: string; mode: Mode } | undefined;
  if (key) {
    if (mode !== undefined && mode !== key.mode)
      throw new GatewayError("mode_forbidden", {
        param: "mode",
        message: `A ${key.mode} key exports ${key.mode} data only.`,
      });
    return { merchantId: key.merchantId, mode: key.mode };
  }
  const session = res.locals.session as { merchantId: string };
  return { merchantId: session.merchantId, mode: mode ?? "live" };
}

type Range = ReturnType<typeof exportRange> & { merchantId: string; mode: Mode };

/** What each export reads and how a row reads in the file. */
const SOURCES = {
  payments: (sql: ApiDeps["sql"], r: Range): CsvSource<PaymentExportRow> => ({
    columns: PAYMENT_EXPORT_COLUMNS,
    batches: paymentExportBatches(sql, r),
    toRecord: toPaymentExportRecord,
  }),
  ledger: (sql: ApiDeps["sql"], r: Range): CsvSource<LedgerExportRow> => ({
    columns: LEDGER_EXPORT_COLUMNS,
    batches: ledgerExportBatches(sql, r),
    toRecord: toLedgerExportRecord,
  }),
  payouts: (sql: ApiDeps["sql"], r: Range): CsvSource<PayoutRow> => ({
    columns: PAYOUT_EXPORT_COLUMNS,
    batches: payoutExportBatches(sql, r),
    toRecord: toPayoutExportRecord,
  }),
};

/** `GET /exports/payments.csv`, `/exports/ledger.csv`, `/exports/payouts.csv?from=&to=&mode=`. */
export function exportRoutes(deps: ApiDeps): Router {
  const router = Router();
  const auth = keyOrSession(deps);
  const handler =
    (name: keyof typeof SOURCES): Handler<typeof exportPaymentsOperation> =>
    async ({ query: q }, _req, res) => {
      const range: Range = { ...owner(res, q.mode), ...exportRange(q) };
      const day = (d: Date) => d.toISOString().slice(0, 10);
      const filename = `${name}-${range.mode}-${day(range.from)}-${day(range.to)}.csv`;
      deps.log.info({ merchantId: range.merchantId, mode: range.mode, export: name }, "CSV export started");
      return sendCsv(res, deps.log, { filename, ...SOURCES[name](deps.sql, range) } as CsvExport<unknown>);
    };
  mount(router, exportPaymentsOperation, [auth], handler("payments"));
  mount(router, exportLedgerOperation, [auth], handler("ledger"));
  mount(router, exportPayoutsOperation, [auth], handler("payouts"));
  return router;
}
