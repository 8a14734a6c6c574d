// `gateway payments list` and `gateway payments get <id>`.
import type { Payment } from "@gateway/contracts";
import { type ApiClient, ApiError } from "./api-client.js";
import { CliError } from "./cli-error.js";
import type { Output } from "./output.js";

interface PaymentList {
  object: "list";
  data: Payment[];
  has_more: boolean;
}

function line(p: Payment): string {
  const paid = p.coin ? ` in ${p.coin} on ${p.chain}` : "";
  return `${p.id}  ${p.status.padEnd(10)} ${p.amount} ${p.currency}${paid}  ${p.created_at}`;
}

export async function listPayments(
  client: ApiClient,
  out: Output,
  q: { limit: number; status?: string | undefined; startingAfter?: string | undefined },
): Promise<void> {
  const params = new URLSearchParams({ limit: String(q.limit) });
  if (q.status) params.set("status", q.status);
  if (q.startingAfter) params.set("starting_after", q.startingAfter);
  const page = await withWords(() => client.get<PaymentList>(`/payments?${params}`));
  const more = page.has_more ? `\nMore: gateway payments list --starting-after ${page.data.at(-1)!.id}` : "";
  out.result(page.data.length === 0 ? "No payments." : `${page.data.map(line).join("\n")}${more}`, page);
}

export async function getPayment(client: ApiClient, out: Output, id: string): Promise<void> {
  const p = await withWords(() => client.get<Payment>(`/payments/${encodeURIComponent(id)}`));
  const rows: [string, string | null][] = [
    ["id", p.id],
    ["status", p.status],
    ["amount", `${p.amount} ${p.currency}`],
    ["fee", `${p.fee} ${p.currency}`],
    ["paid in", p.coin ? `${p.coin} on ${p.chain}` : null],
    ["deposit address", p.deposit_address],
    ["received", p.coin ? `${p.amount_received} ${p.coin}` : null],
    ["test", String(p.is_test)],
    ["created", p.created_at],
    ["checkout", p.checkout_url],
  ];
  out.result(
    rows
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `${k.padEnd(16)}${v}`)
      .join("\n"),
    p,
  );
}

/** The API's own words for a bad id or filter, in one line. */
async function withWords<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError) throw new CliError(`${err.message} (${err.code})`);
    throw err;
  }
}
