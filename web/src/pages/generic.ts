import { bytes, duration, h, num, table, time } from "../dom";

// Tables for lists whose items the page does not model field by field (routes that other
// parts of the server grow): every key of the items becomes a column, formatted by its
// name's unit suffix (docs/management-api.md: -ms, -bytes, ...).
export type Item = Record<string, unknown>;

export function formatValue(key: string, v: unknown): string {
  if (v === null || v === undefined) return "–";
  if (typeof v === "number") {
    if (key.endsWith("-at-ms") || key.endsWith("time-ms") || key === "timestamp-ms") return time(v);
    if (key.endsWith("-ms")) return duration(v);
    if (key.endsWith("-seconds")) return duration(v * 1000);
    if (key.endsWith("bytes")) return bytes(v);
    if (key.endsWith("bytes-per-second")) return `${bytes(v)}/s`;
    return num(v);
  }
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

export function genericTable(items: Item[], empty: string, extra?: { title: string; cell: (row: Item) => Node | string | null }[]): HTMLElement {
  const keys: string[] = [];
  for (const it of items) for (const k of Object.keys(it)) if (!keys.includes(k)) keys.push(k);
  return table<Item>(
    [
      ...keys.map((k) => ({ title: k, cell: (row: Item) => formatValue(k, row[k]), num: typeof items.find((i) => i[k] !== undefined)?.[k] === "number" })),
      ...(extra ?? []),
    ],
    items,
    empty,
  );
}

export function section(title: string, ...children: (Node | null)[]): HTMLElement {
  return h("section", { class: "card" }, h("h2", null, title), ...children.filter((c): c is Node => c !== null));
}
