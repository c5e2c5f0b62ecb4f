import { enc, getOptional, Page } from "../api";
import { card, h, link } from "../dom";
import { formatValue, genericTable, Item } from "./generic";

// Produce-time schema validation (docs/table-topics.md): the records refused per reason and
// the last few refusals' messages, shown as their own columns rather than as raw JSON.
const REJECTED = "validation-rejected";
const RECENT = "recent-rejections";

function rejectedTotal(t: Item): number {
  const byReason = (t[REJECTED] ?? {}) as Record<string, number>;
  return Object.values(byReason).reduce((a, b) => a + b, 0);
}

function rejectedCell(t: Item): HTMLElement {
  const byReason = (t[REJECTED] ?? {}) as Record<string, number>;
  const reasons = Object.entries(byReason).map(([r, n]) => `${r}: ${n}`).join(", ");
  return h("span", { title: reasons }, String(rejectedTotal(t)));
}

function recentCell(t: Item, last: number): HTMLElement | string {
  const recent = ((t[RECENT] ?? []) as string[]).slice(-last);
  if (recent.length === 0) return "–";
  return h("ul", { class: "rejections" }, ...recent.reverse().map((m) => h("li", null, m)));
}

function withoutValidation(t: Item): Item {
  const { [REJECTED]: _rejected, [RECENT]: _recent, ...rest } = t;
  return rest;
}

export async function topicsPage(): Promise<HTMLElement> {
  const topics = await getOptional<Page<Item>>("/api/v1/topics?page-size=1000");
  return h(
    "div",
    null,
    h("h1", null, "Topics"),
    card(
      "Topics",
      topics === null
        ? h("p", { class: "empty" }, "Topics: not available on this server.")
        : genericTable(
            topics.items.map(withoutValidation),
            "No topics yet: produce to the Kafka endpoint to create one.",
            [
              { title: "refused", cell: (t) => rejectedCell(byName(topics.items, t)) },
              { title: "last refusals", cell: (t) => recentCell(byName(topics.items, t), 3) },
              { title: "", cell: (t) => link(`/topics/${enc(String(t.name))}`, "details") },
            ],
          ),
    ),
  );
}

function byName(items: Item[], row: Item): Item {
  return items.find((t) => t.name === row.name) ?? row;
}

export async function topicPage(params: string[]): Promise<HTMLElement> {
  const [name] = params;
  const base = `/api/v1/topics/${enc(name)}`;
  const [topic, records] = await Promise.all([getOptional<Item>(base), getOptional<Page<Item>>(`${base}/records?limit=20`)]);
  return h(
    "div",
    null,
    h("p", { class: "crumbs" }, link("/topics", "Topics")),
    h("h1", null, "Topic ", name),
    card(
      "Details",
      topic === null
        ? h("p", { class: "empty" }, "Topic details: not available on this server.")
        : h(
            "dl",
            { class: "settings" },
            Object.entries(withoutValidation(topic)).flatMap(([k, v]) => [
              h("dt", null, k),
              // Lists of records (per-partition offsets, commits) read best as tables.
              h("dd", { "data-key": k }, Array.isArray(v) && v.every((x) => x !== null && typeof x === "object") ? genericTable(v as Item[], "none") : formatValue(k, v)),
            ]),
          ),
    ),
    topic === null
      ? null
      : card(
          "Produce-time validation",
          h(
            "dl",
            { class: "settings" },
            h("dt", null, "refused records"),
            h("dd", { "data-key": REJECTED }, rejectedCell(topic)),
            h("dt", null, "by reason"),
            h("dd", null, Object.entries((topic[REJECTED] ?? {}) as Record<string, number>).map(([r, n]) => `${r}: ${n}`).join(", ") || "–"),
            h("dt", null, "last refusals"),
            h("dd", { "data-key": RECENT }, recentCell(topic, 5)),
          ),
        ),
    card(
      "Recent records",
      records === null ? h("p", { class: "empty" }, "Records: not available on this server.") : genericTable(records.items ?? [], "No records."),
    ),
  );
}
