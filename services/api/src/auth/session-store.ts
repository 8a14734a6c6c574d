import { newId, type Sql } from "@gateway/db";
import type { Role } from "./permissions.js";
import type { SessionPrincipal, SessionStore } from "./session-token.js";

/** How often a session's `last_seen_at` is written: not on every request. */
const SEEN_EVERY_SECONDS = 30;

/** Session rows in PostgreSQL (migration 1700). */
export function createSessionStore(sql: Sql): SessionStore {
  return {
    async open(userId, { ip, userAgent }, ttlSeconds) {
      const id = newId("ses");
      await sql`
        insert into sessions (id, user_id, ip, user_agent, expires_at)
        values (${id}, ${userId}, ${ip}, ${userAgent.slice(0, 500)},
                now() + make_interval(secs => ${ttlSeconds}))`;
      return id;
    },
    async find(sessionId, userId) {
      const [row] = await sql<
        {
          merchant_id: string;
          email: string;
          role: Role;
          setup_required: boolean;
        }[]
      >`
        with seen as (
          update sessions set last_seen_at = now()
          where id = ${sessionId} and revoked_at is null
            and last_seen_at < now() - make_interval(secs => ${SEEN_EVERY_SECONDS})
        )
        select u.merchant_id, u.email, u.role,
          (m.require_2fa and u.totp_enabled_at is null
            and not exists (select 1 from passkeys p where p.user_id = u.id)) as setup_required
        from sessions s
          join users u on u.id = s.user_id
          join merchants m on m.id = u.merchant_id
        where s.id = ${sessionId} and s.user_id = ${userId}
          and s.revoked_at is null and s.expires_at > now()`;
      if (!row) return undefined;
      return {
        merchantId: row.merchant_id,
        userId,
        sessionId,
        email: row.email,
        role: row.role,
        secondFactorSetupRequired: row.setup_required,
      } satisfies SessionPrincipal;
    },
  };
}
