// The home page's chart: USD volume per day as inline SVG bars, drawn here (no chart library, no
// third-party request). Colours come from the stylesheet's classes: the CSP allows no inline style.
import { h } from "./dom.js";
import type { DashboardOverview } from "./types.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 12, right: 8, bottom: 28, left: 56 };

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  ...children: (Node | string)[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  el.append(...children);
  return el;
}

/** One day of the overview's volume. */
type DayPoint = DashboardOverview["volume"][number];

/** A round top for the axis: 1, 2 or 5 times a power of ten, at least `max`. */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * power).find((m) => m >= max)!;
}

/** One bar a day; each bar's title says its day, count and value, and a table repeats them for readers. */
export function volumeChart(days: DayPoint[]): HTMLElement {
  const values = days.map((d) => Number(d.usd_value));
  const top = niceMax(Math.max(...values));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(days.length, 1);
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const grid = [0, 0.5, 1].map((f) =>
    svg(
      "g",
      { class: "chart-grid" },
      svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(top * f), y2: y(top * f) }),
      svg(
        "text",
        { x: PAD.left - 6, y: y(top * f) + 4, "text-anchor": "end" },
        `$${(top * f).toLocaleString()}`,
      ),
    ),
  );
  const bars = days.map((d, i) => {
    const value = Number(d.usd_value);
    const barH = Math.max(value > 0 ? 1 : 0, (value / top) * plotH);
    return svg(
      "rect",
      {
        class: "chart-bar",
        x: (PAD.left + i * slot + slot * 0.15).toFixed(1),
        y: (PAD.top + plotH - barH).toFixed(1),
        width: (slot * 0.7).toFixed(1),
        height: barH.toFixed(1),
        "data-day": d.day,
        "data-value": d.usd_value,
      },
      svg("title", {}, `${d.day}: ${d.completed} completed, $${d.usd_value}`),
    );
  });
  const labels = [0, Math.floor(days.length / 2), days.length - 1]
    .filter((i) => days[i])
    .map((i) =>
      svg(
        "text",
        { class: "chart-label", x: PAD.left + i * slot + slot / 2, y: HEIGHT - 8, "text-anchor": "middle" },
        days[i]!.day.slice(5),
      ),
    );
  const total = values.reduce((a, b) => a + b, 0);
  const chart = svg(
    "svg",
    {
      class: "volume-chart",
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "img",
      "aria-label": `Completed volume per day over the last ${days.length} days: $${total.toFixed(2)} in all`,
    },
    ...grid,
    ...bars,
    ...labels,
  );
  return h(
    "figure",
    { class: "chart panel" },
    chart,
    h(
      "figcaption",
      {},
      `USD volume of completed payments per day (UTC), ${days[0]?.day} to ${days.at(-1)?.day}`,
    ),
  );
}
