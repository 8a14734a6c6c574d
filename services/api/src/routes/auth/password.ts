import { GatewayError } from "@gateway/errors";
import { z } from "zod";
import { revokeOtherSessions } from "../../accounts/second-factor.js";
import { type createAudit, memberActor } from "../../auth/audit.js";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { chosenPassword, triedPassword } from "./fields.js";
import { hashPassword, verifyPassword } from "./passwords.js";
import { LIMITS, throttle } from "./throttle.js";

export const changePasswordOperation = defineOperation({
  method: "post",
  path: "/auth/password",
  operationId: "changePassword",
  summary: "Changes the signed-in member's password; every other session of theirs ends.",
  auth: "bearer",
  body: z
    .strictObject({ current_password: triedPassword, new_password: chosenPassword })
    .meta({ id: "ChangePasswordRequest" }),
  responses: { 200: z.object({ object: z.literal("password_change"), changed: z.literal(true) }) },
});

/** `POST /auth/password {current_password, new_password}`; a wrong current password is a 400. */
export function changePassword(
  { sql, limiter }: Pick<ApiDeps, "sql" | "limiter">,
  audit: ReturnType<typeof createAudit>,
): Handler<typeof changePasswordOperation> {
  return async ({ body }, req, res) => {
    const session = sessionPrincipal(res);
    await throttle(limiter, [[`login:account:${session.email}`, LIMITS.loginPerAccount]]);
    const [user] = await sql<{ password_hash: string }[]>`
      select password_hash from users where id = ${session.userId}`;
    if (!(await verifyPassword(user?.password_hash, body.current_password)))
      throw new GatewayError("parameter_invalid", {
        param: "current_password",
        message: "The current password is wrong.",
      });
    const hash = await hashPassword(body.new_password);
    await sql.begin(async (tx) => {
      await tx`update users set password_hash = ${hash} where id = ${session.userId}`;
      await revokeOtherSessions(tx, session.userId, session.sessionId);
      await audit.record(tx, { ...memberActor(session), action: "password.changed" }, req);
    });
    return { object: "password_change", changed: true };
  };
}
