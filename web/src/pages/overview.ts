import { get, getOptional, Page } from "../api";
import { barList, donut } from "../charts";
import { bytes, card, h, healthClass, link, num, stat, table } from "../dom";

interface Overview {
  catalogs: number;
  "catalogs-by-type": Record<string, number>;
  tables: number;
  "tables-by-status": Record<string, number>;
  optimizer: { enabled: boolean; threads: number; "queued-tables": number; "running-tables": number };
}

interface Storage {
  "evaluated-tables": number;
  "unplanned-tables": number;
  "data-files": number;
  "delete-files": number;
  records: number;
  "total-bytes": number;
  "health-distribution": { from: number; to: number; tables: number }[];
}

export interface TableStat {
  catalog: string;
  namespace: string;
  name: string;
  identifier: string;
  "data-files": number;
  "delete-files": number;
  records: number;
  "total-bytes": number;
  "health-score": number | null;
}

export function tableHref(t: { catalog: string; namespace: string; name: string }): string {
  return `/tables/${encodeURIComponent(t.catalog)}/${encodeURIComponent(t.namespace)}/${encodeURIComponent(t.name)}`;
}

const STATUS_ORDER = ["idle", "pending", "planning", "minor", "major", "full", "committing"];

async function top(sort: string): Promise<TableStat[]> {
  const page = await getOptional<Page<TableStat>>(`/api/v1/table-stats?sort=${sort}&page-size=10`);
  return page?.items ?? [];
}

export async function overviewPage(): Promise<HTMLElement> {
  const [overview, storage, bySize, byFiles, byHealth] = await Promise.all([
    get<Overview>("/api/v1/overview"),
    getOptional<Storage>("/api/v1/storage"),
    top("-total-bytes"),
    top("-data-files"),
    top("health-score"),
  ]);
  const statuses = STATUS_ORDER.map((s) => ({ label: s, value: overview["tables-by-status"][s] ?? 0, kind: s }));
  const opt = overview.optimizer;
  const summary = h(
    "div",
    { class: "stats" },
    stat("catalogs", num(overview.catalogs), "catalog-count"),
    stat("tables", num(overview.tables), "table-count"),
    stat("data files", num(storage?.["data-files"]), "data-file-count"),
    stat("delete files", num(storage?.["delete-files"]), "delete-file-count"),
    stat("records", num(storage?.records), "record-count"),
    stat("data size", bytes(storage?.["total-bytes"]), "total-size"),
  );
  const health = storage
    ? barList(
        storage["health-distribution"].map((b) => ({
          label: `score ${b.from}–${b.to}`,
          value: b.tables,
          kind: healthClass(b.from),
        })),
        "tables by health score",
      )
    : h("p", { class: "empty" }, "No table has been evaluated yet.");
  const topTable = (rows: TableStat[], value: (t: TableStat) => string, title: string) =>
    table(
      [
        { title: "table", cell: (t) => link(tableHref(t), `${t.catalog}.${t.identifier}`) },
        { title, cell: value, num: true },
      ],
      rows,
      "No table has been evaluated yet.",
    );
  return h(
    "div",
    null,
    h("h1", null, "Overview"),
    summary,
    h(
      "div",
      { class: "cols" },
      card(
        "Optimizing status",
        donut(statuses, "tables by optimizing status", num(overview.tables)),
        h(
          "p",
          { class: "muted", "data-testid": "optimizer-summary" },
          opt.enabled
            ? `Local optimizer: ${opt.threads} thread(s), ${opt["queued-tables"]} queued, ${opt["running-tables"]} running.`
            : "Self-optimizing is off on this server.",
        ),
      ),
      card("Table health", health, storage && storage["unplanned-tables"] > 0 ? h("p", { class: "muted" }, `${storage["unplanned-tables"]} table(s) not planned yet.`) : null),
    ),
    card(
      "Catalogs by type",
      barList(
        Object.entries(overview["catalogs-by-type"]).map(([type, n]) => ({ label: type, value: n })),
        "catalogs by type",
      ),
    ),
    h(
      "div",
      { class: "cols three" },
      card("Largest tables", topTable(bySize, (t) => bytes(t["total-bytes"]), "size")),
      card("Most data files", topTable(byFiles, (t) => num(t["data-files"]), "files")),
      card(
        "Least healthy",
        topTable(byHealth.filter((t) => t["health-score"] !== null), (t) => String(t["health-score"]), "health"),
      ),
    ),
  );
}
