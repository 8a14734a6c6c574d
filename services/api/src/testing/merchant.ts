import { newId, type Sql } from "@gateway/db";
import { generateKeypair } from "../auth/api-keys.js";

export interface TestMerchant {
  merchantId: string;
  keypairId: string;
  testKey: string;
  liveKey: string;
}

/**
 * A verified merchant with an active keypair, written straight to the database: tests of the
 * merchant API need keys, not the sign-up flow (which has its own tests).
 */
export async function createTestMerchant(sql: Sql, name = "Test Shop"): Promise<TestMerchant> {
  const merchantId = newId("mer");
  const keypairId = newId("key");
  const keys = generateKeypair();
  await sql`insert into merchants (id, email, business_name, password_hash, email_verified_at)
    values (${merchantId}, ${`${merchantId}@example.test`}, ${name}, 'not-a-login', now())`;
  await sql`insert into api_keypairs (id, merchant_id, test_key_hash, test_key_prefix, live_key_hash, live_key_prefix)
    values (${keypairId}, ${merchantId}, ${keys.testHash}, ${keys.testPrefix}, ${keys.liveHash}, ${keys.livePrefix})`;
  return { merchantId, keypairId, testKey: keys.testKey, liveKey: keys.liveKey };
}
