import { Router } from "express";
import { createAudit } from "../../auth/audit.js";
import type { ApiDeps } from "../../deps.js";
import { createClientIp } from "../../http/client-ip.js";
import { mount } from "../../http/operation.js";
import { createEmailCodes } from "../auth/email-codes.js";
import { acceptInvitation, acceptInvitationOperation, invite, inviteOperation } from "./invitations.js";
import {
  getTeam,
  getTeamOperation,
  removeMember,
  removeMemberOperation,
  setRole,
  setRoleOperation,
  setTeamSettings,
  teamSettingsOperation,
} from "./members.js";

export const teamOperations = [
  getTeamOperation,
  inviteOperation,
  acceptInvitationOperation,
  setRoleOperation,
  removeMemberOperation,
  teamSettingsOperation,
] as const;

/** The team: members and roles, invitations, and the team's settings (session JWT). */
export function teamRoutes(deps: ApiDeps): Router {
  const router = Router();
  const audit = createAudit(deps.config.TRUSTED_PROXIES);
  const codes = createEmailCodes({ sql: deps.sql, secret: deps.config.JWT_SECRET });
  const session = [deps.sessions.require];
  mount(router, getTeamOperation, session, getTeam(deps));
  mount(router, inviteOperation, session, invite(deps, codes, audit));
  mount(
    router,
    acceptInvitationOperation,
    [],
    acceptInvitation(deps, codes, audit, createClientIp(deps.config.TRUSTED_PROXIES)),
  );
  mount(router, setRoleOperation, session, setRole(deps, audit));
  mount(router, removeMemberOperation, session, removeMember(deps, audit));
  mount(router, teamSettingsOperation, session, setTeamSettings(deps, audit));
  return router;
}
