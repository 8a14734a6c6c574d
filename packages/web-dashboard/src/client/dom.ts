// Small DOM helpers: every value from the server is written as text (through `h`), never as
// markup. No view library: the pages are forms and tables redrawn whole after each change, which
// these few functions cover without a dependency or a build-time JSX transform.

export type Child = Node | string | null | undefined | false;
export type Children = Child | Child[];

/** Attributes; `on<event>` become listeners, `dataset` fills data-*, `true` is a bare attribute. */
export type Attrs = Record<string, unknown> & { dataset?: Record<string, string> };

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Children[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value as EventListener);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child);
  }
  return el;
}

function main(): HTMLElement {
  return document.getElementById("main")!;
}

/** Replaces the page's content; the new heading takes the focus, as a page load would. */
export function show(title: string, ...content: Children[]): void {
  document.title = `${title} · Gateway dashboard`;
  const heading = h("h1", { tabindex: "-1" }, title);
  main().replaceChildren(heading, ...content.flat().filter((c): c is Node | string => Boolean(c)));
  heading.focus();
}

let flashedAt = 0;

/** A message in the status region; it survives the navigation that follows it, then goes. */
export function flash(message: string, kind: "info" | "success" | "error" = "info"): void {
  flashedAt = Date.now();
  const box = document.getElementById("flash")!;
  box.className = `flash flash-${kind}`;
  box.textContent = message;
}

/** Called on each navigation: a message older than the navigation that follows it goes. */
export function clearStaleFlash(): void {
  if (Date.now() - flashedAt > 1500) document.getElementById("flash")!.textContent = "";
}

/** An error a form shows in its alert box, marking the field named `param`. */
export class FieldError extends Error {
  constructor(
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A red button that asks `question` first, then runs `act`, says `done` and redraws the list;
 * on failure it says why and can be pressed again. */
export function dangerButton(b: {
  label: string;
  ariaLabel: string;
  question: string;
  act: () => Promise<unknown>;
  done: string;
  redraw: () => Promise<void>;
}): HTMLButtonElement {
  const button = h("button", { type: "button", class: "danger" }, b.label);
  button.setAttribute("aria-label", b.ariaLabel);
  button.addEventListener("click", async () => {
    if (!window.confirm(b.question)) return;
    button.disabled = true;
    try {
      await b.act();
      flash(b.done, "success");
      await b.redraw();
    } catch (err) {
      flash(errorMessage(err), "error");
      button.disabled = false;
    }
  });
  return button;
}

export function field(label: string, input: HTMLElement, hint?: string): HTMLDivElement {
  const id = input.id || `f-${Math.random().toString(36).slice(2)}`;
  input.id = id;
  const hintEl = hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null;
  if (hintEl) input.setAttribute("aria-describedby", hintEl.id);
  return h("div", { class: "field" }, h("label", { for: id }, label), input, hintEl);
}

export function input(attrs: Attrs): HTMLInputElement {
  return h("input", { type: "text", ...attrs });
}

/** The six-digit code every e-mailed confirmation asks for (sign-up, payout wallet, payout). */
/** The password a new member chooses, with the API's minimum length. */
export function newPasswordField(): HTMLDivElement {
  return field(
    "Password",
    input({
      type: "password",
      name: "password",
      autocomplete: "new-password",
      required: true,
      minlength: 10,
    }),
    "At least 10 characters.",
  );
}

export function codeInput(name: string, attrs: Attrs = {}): HTMLInputElement {
  return input({
    name,
    inputmode: "numeric",
    autocomplete: "one-time-code",
    pattern: "[0-9]{6}",
    maxlength: 6,
    ...attrs,
  });
}

/** A form whose submit runs `action`; errors land in its own alert box and on the field at fault. */
export function form(
  attrs: Attrs,
  fields: Children[],
  submitLabel: string,
  action: (data: FormData) => Promise<void>,
): HTMLFormElement {
  const error = h("p", { class: "form-error", role: "alert" });
  const button = h("button", { type: "submit", class: "primary" }, submitLabel);
  const el = h(
    "form",
    { ...attrs, novalidate: true },
    ...fields,
    error,
    h("div", { class: "actions" }, button),
  );
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    for (const bad of el.querySelectorAll("[aria-invalid]")) bad.removeAttribute("aria-invalid");
    button.disabled = true;
    try {
      await action(new FormData(el));
    } catch (err) {
      error.textContent = errorMessage(err);
      const param = (err as { param?: unknown }).param;
      const at =
        typeof param === "string" ? el.querySelector<HTMLElement>(`[name="${CSS.escape(param)}"]`) : null;
      if (at) {
        at.setAttribute("aria-invalid", "true");
        at.focus();
      }
    } finally {
      button.disabled = false;
    }
  });
  return el;
}

/** A form value as trimmed text; an absent field is "". */
export function text(data: FormData, name: string): string {
  return String(data.get(name) ?? "").trim();
}

export function statusBadge(status: string): HTMLSpanElement {
  return h("span", { class: `badge badge-${status}` }, status);
}

/** A `<dl class="details">` of [term, value] rows. */
export function details(rows: [string, Node | string][]): HTMLDListElement {
  return h(
    "dl",
    { class: "details" },
    rows.map(([term, value]) => h("div", {}, h("dt", {}, term), h("dd", {}, value))),
  );
}

/** A cell: its label (shown on phones, where rows become cards) and its value. */
export type Cell = [label: string | null, value: Node | string];

/** A table that turns into cards on phones; an empty heading is an action column. */
export function listTable(
  caption: string,
  headings: string[],
  rows: Cell[][],
  rowData: (i: number) => Record<string, string> = () => ({}),
): HTMLDivElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "list" },
      h("caption", { class: "visually-hidden" }, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          headings.map((name) =>
            h("th", { scope: "col" }, name ? name : h("span", { class: "visually-hidden" }, "Action")),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((cells, i) =>
          h(
            "tr",
            { dataset: rowData(i) },
            cells.map(([label, value]) => h("td", label ? { "data-label": label } : {}, value)),
          ),
        ),
      ),
    ),
  );
}

/**
 * Copies to the clipboard and says so in the status region, which screen readers announce. The
 * button's visible word changes; the hidden rest of its name says what it copies.
 */
export async function copy(value: string, word: HTMLElement, what: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(value);
    word.textContent = "Copied";
    flash(`${what} copied to the clipboard.`, "success");
  } catch {
    flash(`Could not copy: select the ${what.toLowerCase()} and copy it by hand.`, "error");
  }
  setTimeout(() => {
    word.textContent = "Copy";
  }, 2000);
}

/** A read-only secret with a copy button. */
function secretRow(label: string, value: string, name: string): HTMLDivElement {
  const word = h("span", {}, "Copy");
  const button = h(
    "button",
    { type: "button" },
    word,
    h("span", { class: "visually-hidden" }, ` the ${label.toLowerCase()}`),
  );
  button.addEventListener("click", () => copy(value, word, label));
  return h(
    "div",
    { class: "field" },
    h("label", {}, label, h("input", { readonly: true, value, name, class: "secret", spellcheck: "false" })),
    button,
  );
}

/** The "I have saved it" button that empties and hides a reveal section. */
function dismissButton(section: HTMLElement, label: string): HTMLDivElement {
  return h(
    "div",
    { class: "actions" },
    h(
      "button",
      {
        type: "button",
        onclick: () => {
          section.replaceChildren();
          section.hidden = true;
        },
      },
      label,
    ),
  );
}

/**
 * Secrets the server shows only once (new API keys, an endpoint's signing secret): a warning,
 * each secret with a copy button, and a button that forgets them. Focus moves to the title.
 */
export function revealOnce(
  section: HTMLElement,
  reveal: {
    titleId: string;
    title: string;
    urge: string;
    why: string;
    secrets: [label: string, value: string, name: string][];
    saved: string;
  },
): void {
  const title = h("h2", { id: reveal.titleId, tabindex: "-1" }, reveal.title);
  section.replaceChildren(
    title,
    h("p", { class: "warning" }, h("strong", {}, reveal.urge), reveal.why),
    ...reveal.secrets.map(([label, value, name]) => secretRow(label, value, name)),
    dismissButton(section, reveal.saved),
  );
  section.setAttribute("aria-labelledby", title.id);
  section.hidden = false;
  title.focus();
}
