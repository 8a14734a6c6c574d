// The team page's operations: who is on the team, their roles, removing them, team settings.
import { GatewayError } from "@gateway/errors";
import { z } from "zod";
import { type createAudit, memberActor } from "../../auth/audit.js";
import { ROLES } from "../../auth/permissions.js";
import { type SessionPrincipal, sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { addressedBy, defineOperation, type Handler } from "../../http/operation.js";
import { MemberSchema, OkSchema, TeamSchema } from "../../openapi/account-resources.js";
import { listInvitations, listMembers, lockMember, memberById, toMemberResource } from "./team-store.js";

const memberOperation = addressedBy(
  z.object({ id: z.string().max(100).meta({ description: "The member's id (usr_…)." }) }),
  "No such member.",
);

export const getTeamOperation = defineOperation({
  method: "get",
  path: "/team",
  operationId: "getTeam",
  summary: "The team: members with their roles, pending invitations, and whether 2FA is required.",
  auth: "bearer",
  responses: { 200: TeamSchema },
});

export const setRoleOperation = memberOperation({
  method: "put",
  path: "/team/members/{id}",
  operationId: "setMemberRole",
  summary: "Changes a member's role. Only an owner grants or takes away ownership; one owner always stays.",
  auth: "bearer",
  body: z.strictObject({ role: z.enum(ROLES) }).meta({ id: "SetRoleRequest" }),
  responses: { 200: MemberSchema },
  errors: { 403: "Your role may not change this member.", 409: "The team would have no owner left." },
});

export const removeMemberOperation = memberOperation({
  method: "delete",
  path: "/team/members/{id}",
  operationId: "removeMember",
  summary: "Removes a member (and ends their sessions). The last owner cannot leave.",
  auth: "bearer",
  responses: { 200: OkSchema },
  errors: { 403: "Your role may not remove this member.", 409: "The team would have no owner left." },
});

export const teamSettingsOperation = defineOperation({
  method: "put",
  path: "/team/settings",
  operationId: "setTeamSettings",
  summary: "Owners only: require two-factor login of every member.",
  auth: "bearer",
  body: z.strictObject({ require_2fa: z.boolean() }).meta({ id: "TeamSettingsRequest" }),
  responses: { 200: z.object({ object: z.literal("team_settings"), require_2fa: z.boolean() }) },
});

type Audit = ReturnType<typeof createAudit>;

export function getTeam({ sql }: Pick<ApiDeps, "sql">): Handler<typeof getTeamOperation> {
  return async (_input, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const [merchant] = await sql<{ require_2fa: boolean }[]>`
      select require_2fa from merchants where id = ${merchantId}`;
    const [members, invitations] = await Promise.all([
      listMembers(sql, merchantId),
      listInvitations(sql, merchantId),
    ]);
    return {
      object: "team",
      require_2fa: merchant?.require_2fa ?? false,
      members: members.map(toMemberResource),
      invitations: invitations.map((i) => ({
        object: "invitation" as const,
        email: i.email,
        role: i.role,
        created_at: i.created_at.toISOString(),
      })),
    };
  };
}

/** Admins manage everyone but owners, and cannot make owners (docs/security.md). */
function refuseOwnerChangeByAdmin(session: SessionPrincipal, ...roles: string[]): void {
  if (session.role !== "owner" && roles.includes("owner"))
    throw new GatewayError("permission_denied", {
      message: "Only an owner can grant, change or remove ownership.",
    });
}

export function setRole({ sql }: Pick<ApiDeps, "sql">, audit: Audit): Handler<typeof setRoleOperation> {
  return async ({ params: { id }, body: { role } }, req, res) => {
    const session = sessionPrincipal(res);
    const member = await sql.begin(async (tx) => {
      const { target, owners } = await lockMember(tx, session.merchantId, id);
      refuseOwnerChangeByAdmin(session, target.role, role);
      if (target.role === "owner" && role !== "owner" && owners <= 1) throw new GatewayError("last_owner");
      await tx`update users set role = ${role} where id = ${id}`;
      await audit.record(
        tx,
        {
          ...memberActor(session),
          action: "member.role_changed",
          details: { member: target.email, from: target.role, to: role },
        },
        req,
      );
      return memberById(tx, id);
    });
    return toMemberResource(member);
  };
}

export function removeMember(
  { sql }: Pick<ApiDeps, "sql">,
  audit: Audit,
): Handler<typeof removeMemberOperation> {
  return async ({ params: { id } }, req, res) => {
    const session = sessionPrincipal(res);
    await sql.begin(async (tx) => {
      const { target, owners } = await lockMember(tx, session.merchantId, id);
      refuseOwnerChangeByAdmin(session, target.role);
      if (target.role === "owner" && owners <= 1) throw new GatewayError("last_owner");
      // Its sessions, passkeys and codes go with it (on delete cascade): its tokens stop at once.
      await tx`delete from users where id = ${id}`;
      await audit.record(
        tx,
        {
          ...memberActor(session),
          action: "member.removed",
          details: { member: target.email, role: target.role },
        },
        req,
      );
    });
    return { object: "member", deleted: true, id };
  };
}

export function setTeamSettings(
  { sql }: Pick<ApiDeps, "sql">,
  audit: Audit,
): Handler<typeof teamSettingsOperation> {
  return async ({ body: { require_2fa: required } }, req, res) => {
    const session = sessionPrincipal(res);
    await sql.begin(async (tx) => {
      await tx`update merchants set require_2fa = ${required} where id = ${session.merchantId}`;
      await audit.record(
        tx,
        { ...memberActor(session), action: "team.settings_changed", details: { require_2fa: required } },
        req,
      );
    });
    return { object: "team_settings", require_2fa: required };
  };
}
