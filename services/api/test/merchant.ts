import { newId, type Sql } from "@gateway/db";
import { generateKeypair } from "../src/auth/api-keys.js";

export interface TestMerchant {
  merchantId: string;
  /** Its owner, as the migration makes one for every merchant: `sessions.issue(ownerId)` signs in. */
  ownerId: string;
  keypairId: string;
  testKey: string;
  liveKey: string;
}

/**
 * A verified merchant with its owner and an active keypair, written straight to the database:
 * tests of the merchant API need keys, not the sign-up flow (which has its own tests).
 */
export async function createTestMerchant(
  sql: Sql,
  name = "Test Shop",
  { scopes = null }: { scopes?: string[] | null } = {},
): Promise<TestMerchant> {
  const merchantId = newId("mer");
  const ownerId = `usr_${merchantId.slice(4)}`;
  const keypairId = newId("key");
  const keys = generateKeypair();
  await sql`insert into merchants (id, email, business_name, email_verified_at)
    values (${merchantId}, ${`${merchantId}@example.test`}, ${name}, now())`;
  await sql`insert into users (id, merchant_id, email, password_hash, role, email_verified_at)
    values (${ownerId}, ${merchantId}, ${`${merchantId}@example.test`}, 'not-a-login', 'owner', now())`;
  await sql`insert into api_keypairs (id, merchant_id, test_key_hash, test_key_prefix, live_key_hash, live_key_prefix, scopes)
    values (${keypairId}, ${merchantId}, ${keys.testHash}, ${keys.testPrefix}, ${keys.liveHash}, ${keys.livePrefix}, ${scopes})`;
  return { merchantId, ownerId, keypairId, testKey: keys.testKey, liveKey: keys.liveKey };
}

/** Another member of a merchant, written straight to the database, with a role. */
export async function addTestMember(sql: Sql, merchantId: string, role: string): Promise<string> {
  const userId = newId("usr");
  await sql`insert into users (id, merchant_id, email, password_hash, role, email_verified_at)
    values (${userId}, ${merchantId}, ${`${userId}@example.test`}, 'not-a-login', ${role}, now())`;
  return userId;
}
