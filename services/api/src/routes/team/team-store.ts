// The members of a merchant account and its pending invitations (migration 1700).
import type { Sql, TransactionSql } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { Role } from "../../auth/permissions.js";

export interface MemberRow {
  id: string;
  email: string;
  role: Role;
  two_factor: boolean;
  created_at: Date;
}

export function toMemberResource(row: MemberRow) {
  return {
    id: row.id,
    object: "member" as const,
    email: row.email,
    role: row.role,
    two_factor: row.two_factor,
    created_at: row.created_at.toISOString(),
  };
}

const MEMBER_COLUMNS = (db: Sql | TransactionSql) => db`
  u.id, u.email, u.role, u.created_at,
  (u.totp_enabled_at is not null or exists (select 1 from passkeys p where p.user_id = u.id)) as two_factor`;

export async function listMembers(sql: Sql, merchantId: string): Promise<MemberRow[]> {
  return sql<MemberRow[]>`
    select ${MEMBER_COLUMNS(sql)} from users u where u.merchant_id = ${merchantId} order by u.created_at, u.id`;
}

export async function listInvitations(sql: Sql, merchantId: string) {
  return sql<{ email: string; role: Role; created_at: Date }[]>`
    select email, role, created_at from invitations where merchant_id = ${merchantId} order by created_at`;
}

/**
 * Locks the merchant's owners and the target member in `tx`, so two concurrent changes cannot
 * both take away an owner. A member of another merchant is a 404.
 */
export async function lockMember(tx: TransactionSql, merchantId: string, memberId: string) {
  const rows = await tx<{ id: string; email: string; role: Role }[]>`
    select id, email, role from users
    where merchant_id = ${merchantId} and (role = 'owner' or id = ${memberId})
    order by id for update`;
  const target = rows.find((r) => r.id === memberId);
  if (!target) throw new GatewayError("resource_not_found", { message: "No such member." });
  const owners = rows.filter((r) => r.role === "owner").length;
  return { target, owners };
}

export async function memberById(tx: TransactionSql, memberId: string): Promise<MemberRow> {
  const [row] = await tx<MemberRow[]>`select ${MEMBER_COLUMNS(tx)} from users u where u.id = ${memberId}`;
  return row!;
}
