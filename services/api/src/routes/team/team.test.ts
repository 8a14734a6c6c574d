import { randomBytes } from "node:crypto";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeIn, createTestAccount, fromIp, type TestAccount } from "../../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";
import { totpNow } from "../../../test/totp.js";

let api: TestApi;
let catcher: MailCatcher;
beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" });
});
afterAll(async () => {
  await api.close();
  await catcher.close();
});

const password = "a long enough password";
const newEmail = () => `t${randomBytes(5).toString("hex")}@example.test`;

async function owner() {
  const ip = `10.43.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
  const account = await createTestAccount(api.baseUrl, catcher, { ip });
  const headers = { ...fromIp(ip), ...account.auth };
  const req = (method: string, path: string, body?: unknown, h = headers) =>
    call(api.baseUrl, method, path, { headers: h, ...(body === undefined ? {} : { body }) });
  return { account, headers, req };
}

/** Invites `email` as `role` and accepts with the mailed code; answers the new member's headers. */
async function join(team: Awaited<ReturnType<typeof owner>>, role: string, email = newEmail()) {
  const invited = await team.req("POST", "/team/invitations", { email, role });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const mail = await catcher.waitForMail({ to: email, subject: "invitation code" });
  const accepted = await call(api.baseUrl, "POST", "/auth/accept-invitation", {
    body: { email, code: codeIn(mail.subject), password },
  });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  const headers = { authorization: `Bearer ${accepted.body.token}` };
  const me = await call(api.baseUrl, "GET", "/auth/me", { headers });
  return { email, headers, id: me.body.member.id as string, me: me.body };
}

describe("team members and roles", () => {
  it("invites by e-mail with a single-use code; the new member joins with their role", async () => {
    const team = await owner();
    const email = newEmail();
    const invited = await team.req("POST", "/team/invitations", { email, role: "viewer" });
    expect(invited.body).toMatchObject({ object: "invitation", email, role: "viewer" });
    const mail = await catcher.waitForMail({ to: email, subject: "invitation code" });
    const code = codeIn(mail.subject);
    const wrong = await call(api.baseUrl, "POST", "/auth/accept-invitation", {
      body: { email, code: code === "000000" ? "111111" : "000000", password },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe("code_invalid");
    const accepted = await call(api.baseUrl, "POST", "/auth/accept-invitation", {
      body: { email, code, password },
    });
    expect(accepted.status).toBe(200);
    const replay = await call(api.baseUrl, "POST", "/auth/accept-invitation", {
      body: { email, code, password },
    });
    expect(replay.status).toBe(400);
    const me = await call(api.baseUrl, "GET", "/auth/me", {
      headers: { authorization: `Bearer ${accepted.body.token}` },
    });
    expect(me.body).toMatchObject({ id: team.account.merchantId, member: { email, role: "viewer" } });
    expect(me.body.permissions).toContain("GET /payouts");
    expect(me.body.permissions).not.toContain("POST /payouts");
    const login = await call(api.baseUrl, "POST", "/auth/login", { body: { email, password } });
    expect(login.status).toBe(200);
    const listed = await team.req("GET", "/team");
    expect(listed.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [team.account.email, "owner"],
      [email, "viewer"],
    ]);
    expect(listed.body.invitations).toEqual([]);
  });

  it("refuses an invitation to an existing member, and lets only owners invite owners", async () => {
    const team = await owner();
    const existing = await team.req("POST", "/team/invitations", {
      email: team.account.email,
      role: "admin",
    });
    expect(existing.status).toBe(409);
    expect(existing.body.error).toMatchObject({ code: "member_exists", param: "email" });
    const admin = await join(team, "admin");
    const byAdmin = await team.req(
      "POST",
      "/team/invitations",
      { email: newEmail(), role: "owner" },
      admin.headers,
    );
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.error.code).toBe("permission_denied");
    expect((await team.req("GET", "/team")).body.invitations).toEqual([]);
  });

  it("changes roles and removes members; the last owner can neither leave nor be demoted", async () => {
    const team = await owner();
    const me = await team.req("GET", "/auth/me");
    const ownerId = me.body.member.id as string;
    const demote = await team.req("PUT", `/team/members/${ownerId}`, { role: "admin" });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toMatchObject({ type: "invalid_request_error", code: "last_owner" });
    expect((await team.req("DELETE", `/team/members/${ownerId}`)).body.error.code).toBe("last_owner");
    const admin = await join(team, "admin");
    // An admin cannot touch an owner, nor make one.
    expect(
      (await team.req("PUT", `/team/members/${ownerId}`, { role: "viewer" }, admin.headers)).status,
    ).toBe(403);
    expect(
      (await team.req("PUT", `/team/members/${admin.id}`, { role: "owner" }, admin.headers)).status,
    ).toBe(403);
    const dev = await join(team, "developer");
    const changed = await team.req("PUT", `/team/members/${dev.id}`, { role: "viewer" }, admin.headers);
    expect(changed.body).toMatchObject({ id: dev.id, role: "viewer" });
    // The new role holds at once, on the member's existing session.
    expect((await team.req("POST", "/api-keys", {}, dev.headers)).status).toBe(403);
    const promoted = await team.req("PUT", `/team/members/${admin.id}`, { role: "owner" });
    expect(promoted.body.role).toBe("owner");
    expect((await team.req("PUT", `/team/members/${ownerId}`, { role: "admin" }, admin.headers)).status).toBe(
      200,
    );
    const removed = await team.req("DELETE", `/team/members/${dev.id}`, undefined, admin.headers);
    expect(removed.body).toEqual({ object: "member", deleted: true, id: dev.id });
    expect((await team.req("GET", "/auth/me", undefined, dev.headers)).status).toBe(401);
    expect((await team.req("DELETE", `/team/members/usr_nope`)).status).toBe(404);
    const log = await team.req("GET", "/audit-log?limit=100");
    const actions = log.body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(["member.invited", "member.joined", "member.role_changed", "member.removed"]),
    );
  });

  it("sends a member without a second factor to set one up when the team requires it", async () => {
    const team = await owner();
    const viewer = await join(team, "viewer");
    const set = await team.req("PUT", "/team/settings", { require_2fa: true });
    expect(set.body).toEqual({ object: "team_settings", require_2fa: true });
    expect((await team.req("PUT", "/team/settings", { require_2fa: true }, viewer.headers)).status).toBe(403);
    const blocked = await team.req("GET", "/dashboard/api/payments", undefined, viewer.headers);
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe("two_factor_setup_required");
    const me = await team.req("GET", "/auth/me", undefined, viewer.headers);
    expect(me.body.member.second_factor_setup_required).toBe(true);
    const setup = await team.req("POST", "/auth/2fa/setup", {}, viewer.headers);
    const enabled = await team.req(
      "POST",
      "/auth/2fa/enable",
      { code: totpNow(setup.body.secret) },
      viewer.headers,
    );
    expect(enabled.status).toBe(200);
    expect((await team.req("GET", "/dashboard/api/payments", undefined, viewer.headers)).status).toBe(200);
    // Every owner hears of the change to someone's second factor.
    const notice = await catcher.waitForMail({ to: team.account.email, subject: "second factor" });
    expect(notice.text).toContain(viewer.email);
  });
});

describe("sessions", () => {
  it("lists the member's sessions and revokes one at once", async () => {
    const team = await owner();
    const second = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: team.account.email, password: team.account.password },
      headers: { "user-agent": "second-browser/1.0" },
    });
    const secondAuth = { authorization: `Bearer ${second.body.token}` };
    const list = await team.req("GET", "/sessions");
    expect(list.body.data).toHaveLength(2);
    const current = list.body.data.find((s: { current: boolean }) => s.current);
    const other = list.body.data.find((s: { current: boolean }) => !s.current);
    expect(other).toMatchObject({
      object: "session",
      user_agent: "second-browser/1.0",
      ip: expect.any(String),
    });
    expect(current.id).not.toBe(other.id);
    const revoked = await team.req("DELETE", `/sessions/${other.id}`);
    expect(revoked.body).toEqual({ object: "session", deleted: true, id: other.id });
    const refused = await call(api.baseUrl, "GET", "/auth/me", { headers: secondAuth });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("token_invalid");
    expect((await team.req("DELETE", `/sessions/${other.id}`)).status).toBe(404);
  });

  it("a password change ends the other sessions and needs the current password", async () => {
    const team = await owner();
    const second = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: team.account.email, password: team.account.password },
    });
    const wrong = await team.req("POST", "/auth/password", {
      current_password: "wrong password!",
      new_password: password,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.param).toBe("current_password");
    const changed = await team.req("POST", "/auth/password", {
      current_password: team.account.password,
      new_password: "a brand new password",
    });
    expect(changed.status).toBe(200);
    expect((await team.req("GET", "/auth/me")).status).toBe(200);
    const old = await call(api.baseUrl, "GET", "/auth/me", {
      headers: { authorization: `Bearer ${second.body.token}` },
    });
    expect(old.status).toBe(401);
    const login = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: team.account.email, password: "a brand new password" },
    });
    expect(login.status).toBe(200);
  });
});

describe("audit log", () => {
  it("records actions with actor, IP and user agent, in cursor pages, and cannot be changed", async () => {
    const team: { account: TestAccount } & Awaited<ReturnType<typeof owner>> = await owner();
    for (let i = 0; i < 3; i++) await team.req("POST", "/api-keys", {});
    const first = await team.req("GET", "/audit-log?limit=2");
    expect(first.body.has_more).toBe(true);
    expect(first.body.data[0]).toMatchObject({
      object: "audit_entry",
      action: "api_key.created",
      actor: team.account.email,
      ip: expect.stringMatching(/^10\.43\./),
    });
    const next = await team.req("GET", `/audit-log?limit=2&starting_after=${first.body.data[1].id}`);
    expect(next.body.data[0].id).not.toBe(first.body.data[1].id);
    expect(next.body.data.map((e: { action: string }) => e.action)).toContain("api_key.created");
    await expect(api.db.sql`update audit_log set actor = 'someone else'`).rejects.toThrow(/append-only/);
    await expect(api.db.sql`delete from audit_log`).rejects.toThrow(/append-only/);
    const developer = await join(team, "developer");
    expect((await team.req("GET", "/audit-log", undefined, developer.headers)).status).toBe(403);
  });
});
