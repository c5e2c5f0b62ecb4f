import { enc, getOptional, Page } from "../api";
import { card, h, link } from "../dom";
import { formatValue, genericTable, Item } from "./generic";

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
        : genericTable(topics.items, "No topics yet: produce to the Kafka endpoint to create one.", [
            { title: "", cell: (t) => link(`/topics/${enc(String(t.name))}`, "details") },
          ]),
    ),
  );
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
            Object.entries(topic).flatMap(([k, v]) => [
              h("dt", null, k),
              // Lists of records (per-partition offsets, commits) read best as tables.
              h("dd", { "data-key": k }, Array.isArray(v) && v.every((x) => x !== null && typeof x === "object") ? genericTable(v as Item[], "none") : formatValue(k, v)),
            ]),
          ),
    ),
    card(
      "Recent records",
      records === null ? h("p", { class: "empty" }, "Records: not available on this server.") : genericTable(records.items ?? [], "No records."),
    ),
  );
}
