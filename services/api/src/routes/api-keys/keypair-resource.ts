import type { Scope } from "../../auth/permissions.js";

/** A row of `api_keypairs` as the dashboard reads it: hashes never leave the database. */
export interface KeypairRow {
  id: string;
  test_key_prefix: string;
  live_key_prefix: string;
  active: boolean;
  scopes: Scope[] | null;
  created_at: Date;
  updated_at: Date;
}

export const KEYPAIR_COLUMNS = [
  "id",
  "test_key_prefix",
  "live_key_prefix",
  "active",
  "scopes",
  "created_at",
  "updated_at",
];

/** The masked view: display prefixes only. */
export function toKeypairResource(row: KeypairRow) {
  return {
    id: row.id,
    object: "api_keypair" as const,
    test_key_prefix: row.test_key_prefix,
    live_key_prefix: row.live_key_prefix,
    active: row.active,
    scopes: row.scopes,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
