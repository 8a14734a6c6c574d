// The team: members and roles, invitations, and the 2FA requirement. Controls appear only where
// the member's role allows them (permissions.ts); the server refuses the rest anyway.
import { api } from "./api.js";
import { errorMessage, field, flash, form, h, input, listTable, show, text } from "./dom.js";
import { formatDate } from "./labels.js";
import { can } from "./permissions.js";
import type { Member, Role, Team } from "./types.js";

const ROLES: Role[] = ["owner", "admin", "developer", "viewer"];

function roleSelect(name: string, selected: Role): HTMLSelectElement {
  return h(
    "select",
    { name },
    ROLES.map((r) => h("option", { value: r, selected: r === selected }, r)),
  );
}

function memberRow(m: Member): [string | null, Node | string][] {
  let role: Node | string = m.role;
  if (can("PUT /team/members/{id}")) {
    const select = roleSelect("role", m.role);
    select.setAttribute("aria-label", `Role of ${m.email}`);
    select.addEventListener("change", async () => {
      try {
        await api("PUT", `/team/members/${encodeURIComponent(m.id)}`, { role: select.value });
        flash(`${m.email} is now ${select.value}.`, "success");
      } catch (err) {
        flash(errorMessage(err), "error");
      }
      await teamPage();
    });
    role = select;
  }
  const remove = can("DELETE /team/members/{id}")
    ? h("button", { type: "button", class: "danger" }, "Remove")
    : "";
  if (remove) {
    remove.setAttribute("aria-label", `Remove ${m.email}`);
    remove.addEventListener("click", async () => {
      if (!window.confirm(`Remove ${m.email} from the team?`)) return;
      await api("DELETE", `/team/members/${encodeURIComponent(m.id)}`).catch((err) =>
        flash(errorMessage(err), "error"),
      );
      await teamPage();
    });
  }
  return [
    ["E-mail", m.email],
    ["Role", role],
    ["Two-factor", m.two_factor ? "on" : "off"],
    ["Joined", formatDate(m.created_at)],
    [null, remove],
  ];
}

export async function teamPage(): Promise<void> {
  const team = await api<Team>("GET", "/team");
  const invite = can("POST /team/invitations")
    ? form(
        { "aria-label": "Invite a member" },
        [
          field("E-mail", input({ type: "email", name: "email", required: true })),
          field("Role", roleSelect("role", "developer")),
        ],
        "Send invitation",
        async (data) => {
          await api("POST", "/team/invitations", { email: text(data, "email"), role: text(data, "role") });
          flash(`Invitation sent to ${text(data, "email")}.`, "success");
          await teamPage();
        },
      )
    : null;
  let settings: HTMLElement | null = null;
  if (can("PUT /team/settings")) {
    const box = h("input", { type: "checkbox", name: "require_2fa", checked: team.require_2fa });
    box.addEventListener("change", async () => {
      await api("PUT", "/team/settings", { require_2fa: box.checked }).catch((err) =>
        flash(errorMessage(err), "error"),
      );
      await teamPage();
    });
    settings = h(
      "div",
      { class: "field" },
      h("label", { class: "check" }, box, "Require two-factor login of every member"),
    );
  }
  show(
    "Team",
    h(
      "p",
      {},
      "Owners can do everything; admins everything but ownership; developers keys, webhooks and payments; viewers read only.",
    ),
    settings,
    listTable("Members", ["E-mail", "Role", "Two-factor", "Joined", ""], team.members.map(memberRow)),
    team.invitations.length
      ? [
          h("h2", {}, "Pending invitations"),
          listTable(
            "Invitations",
            ["E-mail", "Role", "Sent"],
            team.invitations.map((i) => [
              ["E-mail", i.email],
              ["Role", i.role],
              ["Sent", formatDate(i.created_at)],
            ]),
          ),
        ]
      : [],
    invite ? [h("h2", {}, "Invite someone"), invite] : [],
  );
}
