import { get, getOptional, Page } from "../api";
import { barList, donut, timeSeries, TimeSeries } from "../charts";
import { bytes, card, h, healthClass, link, num, stat, table } from "../dom";

interface Overview {
  catalogs: number;
  "catalogs-by-type": Record<string, number>;
  tables: number;
  "tables-by-status": Record<string, number>;
  optimizer: { enabled: boolean; threads: number; "queued-tables": number; "running-tables": number };
  "key-index"?: {
    "memory-bytes": number;
    "memory-limit-bytes": number;
    "disk-bytes": number;
    entries: number;
    rebuilds: number;
    "catch-ups": number;
  } | null;
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

interface HistoryPoint {
  "timestamp-ms": number;
  tables: number;
  "data-files": number;
  "delete-files": number;
  records: number;
  "total-bytes": number;
  "optimizer-threads": number;
  "tasks-running": number;
  "tasks-queued": number;
  "resident-memory-bytes": number;
  "cpu-cores": number;
  "bytes-optimized-per-second": number;
  "produce-records-per-second": number;
  "ingest-rows-per-second": number;
}

interface History {
  from: number;
  to: number;
  step: number;
  "interval-ms": number;
  points: HistoryPoint[];
}

// The last day of the server's samples as five charts: data size, files, optimizer,
// ingest rates and the server's own memory and CPU.
function historyCharts(history: History | null): HTMLElement {
  if (!history) return card("Over time", h("p", { class: "empty" }, "This server does not record history."));
  const pts = history.points;
  if (pts.length === 0) {
    return card(
      "Over time",
      h("p", { class: "empty", "data-testid": "history-empty" }, `No samples yet: the server records one every ${Math.round(history["interval-ms"] / 1000)} s.`),
    );
  }
  const times = pts.map((p) => p["timestamp-ms"]);
  const series = (name: string, kind: string, field: keyof HistoryPoint): TimeSeries => ({ name, kind, values: pts.map((p) => p[field]) });
  // Counts are whole; the axis' midpoint may not be.
  const count = (v: number) => (Number.isInteger(v) ? num(v) : v.toFixed(1));
  const rate = (v: number) => (v >= 100 ? num(Math.round(v)) : v.toFixed(v >= 10 ? 1 : 2));
  const chart = (title: string, testid: string, s: TimeSeries[], format: (v: number) => string) =>
    h("div", { class: "card", "data-testid": testid }, h("h2", null, title), timeSeries(times, s, title, format));
  return h(
    "section",
    { "data-testid": "history" },
    h("h2", null, "Over time", h("span", { class: "muted" }, ` · ${pts.length} point(s), one per ${history.step < 1000 ? `${history.step} ms` : `${Math.round(history.step / 1000)} s`}`)),
    h(
      "div",
      { class: "cols" },
      chart("Data size", "history-size", [series("table data", "a", "total-bytes")], (v) => bytes(v)),
      chart("Files", "history-files", [series("data files", "a", "data-files"), series("delete files", "c", "delete-files")], count),
      chart(
        "Optimizer",
        "history-optimizer",
        [series("threads", "a", "optimizer-threads"), series("tasks running", "b", "tasks-running"), series("tasks queued", "c", "tasks-queued")],
        count,
      ),
      chart(
        "Ingest (per second)",
        "history-ingest",
        [series("records produced", "a", "produce-records-per-second"), series("rows committed", "b", "ingest-rows-per-second")],
        rate,
      ),
      chart("Server memory", "history-memory", [series("resident", "a", "resident-memory-bytes")], (v) => bytes(v)),
      chart("Server CPU (cores)", "history-cpu", [series("cpu", "b", "cpu-cores")], (v) => v.toFixed(2)),
    ),
  );
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

const STATUS_ORDER = ["idle", "pending", "planning", "minor", "major", "full", "convert", "committing"];

async function top(sort: string): Promise<TableStat[]> {
  const page = await getOptional<Page<TableStat>>(`/api/v1/table-stats?sort=${sort}&page-size=10`);
  return page?.items ?? [];
}

export async function overviewPage(): Promise<HTMLElement> {
  const [overview, storage, history, bySize, byFiles, byHealth] = await Promise.all([
    get<Overview>("/api/v1/overview"),
    getOptional<Storage>("/api/v1/storage"),
    getOptional<History>("/api/v1/overview/history"),
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
        overview["key-index"]
          ? h(
              "p",
              { class: "muted", "data-testid": "key-index-summary" },
              `Key index (keyed table topics): ${bytes(overview["key-index"]["memory-bytes"])} of ` +
                `${bytes(overview["key-index"]["memory-limit-bytes"])} in memory, ` +
                `${bytes(overview["key-index"]["disk-bytes"])} on disk, ` +
                `${num(overview["key-index"].entries)} entries.`,
            )
          : null,
      ),
      card("Table health", health, storage && storage["unplanned-tables"] > 0 ? h("p", { class: "muted" }, `${storage["unplanned-tables"]} table(s) not planned yet.`) : null),
    ),
    historyCharts(history),
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
