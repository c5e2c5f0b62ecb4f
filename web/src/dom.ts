import { ApiError } from "./api";

// A small DOM builder and the formatting every page shares. Text always goes through
// textContent (never innerHTML), so names from the API cannot inject markup.

export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | EventListener | undefined | null>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on") && typeof v === "function") {
        el.addEventListener(k.slice(2).toLowerCase(), v as EventListener);
      } else if (v === true) {
        el.setAttribute(k, "");
      } else {
        el.setAttribute(k, String(v));
      }
    }
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else if (c instanceof Node) parent.appendChild(c);
    else parent.appendChild(document.createTextNode(String(c)));
  }
}

// An in-app link: navigation without a page load (main.ts listens for clicks on a[data-nav]).
export function link(href: string, ...children: Child[]): HTMLAnchorElement {
  return h("a", { href, "data-nav": "1" }, ...children);
}

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`;
}

export function num(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "–";
  return n.toLocaleString("en-US");
}

export function time(ms: number | null | undefined): string {
  if (!ms) return "–";
  return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || ms < 0) return "–";
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function ago(ms: number | null | undefined, now = Date.now()): string {
  if (!ms) return "never";
  return `${duration(Math.max(0, now - ms))} ago`;
}

// A table: columns with a header and a cell function; rows get data-* attributes for tests.
export interface Column<T> {
  title: Child;
  cell: (row: T) => Child;
  num?: boolean;
}

export function table<T>(columns: Column<T>[], rows: T[], empty = "nothing here yet"): HTMLElement {
  if (rows.length === 0) return h("p", { class: "empty" }, empty);
  return h(
    "table",
    { class: "grid" },
    h("thead", null, h("tr", null, columns.map((c) => h("th", { class: c.num ? "num" : undefined }, c.title)))),
    h(
      "tbody",
      null,
      rows.map((r) => h("tr", null, columns.map((c) => h("td", { class: c.num ? "num" : undefined }, c.cell(r))))),
    ),
  );
}

export function card(title: string, ...children: Child[]): HTMLElement {
  return h("section", { class: "card" }, h("h2", null, title), ...children);
}

export function stat(label: string, value: Child, testid?: string): HTMLElement {
  return h("div", { class: "stat", "data-testid": testid }, h("div", { class: "stat-value" }, value), h("div", { class: "stat-label" }, label));
}

export function badge(text: string, kind = text): HTMLElement {
  return h("span", { class: `badge badge-${kind.replace(/[^a-z0-9-]/gi, "")}` }, text);
}

export function notAvailable(what: string): HTMLElement {
  return h("p", { class: "empty not-available" }, `${what}: not available on this server.`);
}

export function errorBox(e: unknown, action = "This action"): HTMLElement {
  if (e instanceof ApiError && e.notAvailable) return notAvailable(action);
  const message = e instanceof Error ? e.message : String(e);
  return h("p", { class: "error", role: "alert" }, message);
}

export function healthClass(score: number | null | undefined): string {
  if (score === null || score === undefined) return "unknown";
  if (score >= 80) return "good";
  if (score >= 50) return "fair";
  return "poor";
}
