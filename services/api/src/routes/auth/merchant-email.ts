import type { Sql } from "@gateway/db";
import { GatewayError } from "@gateway/errors";

/** The signed-in merchant's address; a session whose merchant is gone is an invalid token. */
export async function signedInMerchantEmail(sql: Sql, merchantId: string): Promise<string> {
  const [merchant] = await sql<{ email: string }[]>`select email from merchants where id = ${merchantId}`;
  if (!merchant) throw new GatewayError("token_invalid");
  return merchant.email;
}
