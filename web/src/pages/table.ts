import { enc, get, getOptional, Page, post, tablePath } from "../api";
import { barList, columns, lines, timeline } from "../charts";
import { ago, badge, bytes, card, duration, errorBox, h, healthClass, link, num, table, time } from "../dom";
import { refresh } from "../router";
import { tableHref } from "./overview";

interface Health {
  score: number;
  "small-files": number;
  "equality-deletes": number;
  "position-deletes": number;
  "lowest-partition-score": number;
  partitions: number;
  "equality-delete-files": number;
  "position-delete-files": number;
  "pending-optimizing-type"?: string;
}

interface Field {
  id: number;
  name: string;
  type: unknown;
  required: boolean;
  doc?: string;
}

interface Details {
  catalog: string;
  namespace: string;
  name: string;
  identifier: string;
  "format-version": number;
  "table-uuid"?: string;
  location: string;
  "metadata-location": string;
  "last-updated-ms": number;
  "current-snapshot-id"?: number;
  "snapshot-count": number;
  schema?: { "schema-id": number; fields: Field[]; "identifier-field-ids"?: number[] };
  "partition-spec"?: { "spec-id": number; fields: { name: string; transform: string; "source-id": number; "field-id": number }[] };
  "sort-order"?: { "order-id": number; fields: { transform: string; "source-id": number; direction: string; "null-order": string }[] };
  properties: Record<string, string>;
  refs: Record<string, { type: string; "snapshot-id": number }>;
  optimizing: { enabled: boolean; status: string; "status-reason": string; "config-error"?: string; "last-plan-ms": number };
  health?: Health;
}

interface FileStats {
  count: number;
  bytes: number;
  records: number;
}

interface Partition {
  key: string;
  fragments: FileStats;
  "undersized-segments": FileStats;
  "rewrite-segments": FileStats;
  "equality-deletes": FileStats;
  "position-deletes": FileStats;
  "health-score": number;
  necessary: boolean;
  "optimizing-type"?: string;
  reason: string;
}

interface Snapshot {
  "snapshot-id": number;
  "sequence-number": number;
  "timestamp-ms": number;
  operation: string;
  producer: string;
  summary: Record<string, string>;
}

interface Process {
  "process-id": number;
  type: string;
  status: string;
  "plan-time-ms": number;
  "duration-ms": number;
  "task-count": number;
  "rewritten-data-files": number;
  "removed-delete-files": number;
  "new-data-files": number;
  "bytes-written": number;
  reason: string;
  error?: string;
}

interface Histogram {
  "target-file-size-bytes": number;
  buckets: { "lower-bytes": number; "upper-bytes": number | null; "data-files": number; "delete-files": number }[];
}

interface Task {
  "task-id"?: number;
  status?: string;
  [k: string]: unknown;
}

function typeText(t: unknown): string {
  return typeof t === "string" ? t : JSON.stringify(t);
}

function actionButton(text: string, testid: string, run: () => Promise<unknown>, status: HTMLElement): HTMLButtonElement {
  const b = h("button", { type: "button", "data-testid": testid }, text);
  b.addEventListener("click", async () => {
    b.disabled = true;
    status.replaceChildren();
    try {
      await run();
      refresh();
    } catch (e) {
      status.replaceChildren(errorBox(e, text));
      b.disabled = false;
    }
  });
  return b;
}

function healthCard(health: Health | undefined): HTMLElement {
  if (!health) return card("Health", h("p", { class: "empty" }, "The table has no snapshot yet."));
  return card(
    "Health",
    h(
      "div",
      { class: "health" },
      h("div", { class: `score score-${healthClass(health.score)}`, "data-testid": "health-score" }, String(health.score)),
      barList(
        [
          { label: "file sizes (of 40)", value: health["small-files"], kind: healthClass((health["small-files"] / 40) * 100) },
          { label: "equality deletes (of 40)", value: health["equality-deletes"], kind: healthClass((health["equality-deletes"] / 40) * 100) },
          { label: "position deletes (of 20)", value: health["position-deletes"], kind: healthClass((health["position-deletes"] / 20) * 100) },
        ],
        "health score parts",
      ),
    ),
    h(
      "p",
      { class: "muted" },
      `${health.partitions} partition(s); lowest partition score ${health["lowest-partition-score"]}; ` +
        `${health["equality-delete-files"]} equality and ${health["position-delete-files"]} position delete file(s).` +
        (health["pending-optimizing-type"] ? ` The optimizer would run a ${health["pending-optimizing-type"]} optimize now.` : ""),
    ),
  );
}

function propertiesCard(path: string, props: Record<string, string>): HTMLElement {
  const rows = h("tbody", null);
  const removed = new Set<string>();
  const addRow = (k: string, v: string, isNew: boolean) => {
    const key = h("input", { value: k, readonly: !isNew, "aria-label": "property name", class: "prop-key" });
    const value = h("input", { value: v, "aria-label": `value of ${k || "new property"}`, "data-property": k || undefined, class: "prop-value" });
    const tr = h("tr", null, h("td", null, key), h("td", null, value));
    const remove = h("button", { type: "button", class: "link-button" }, "remove");
    remove.addEventListener("click", () => {
      if (!isNew) removed.add(k);
      tr.remove();
    });
    tr.appendChild(h("td", null, remove));
    rows.appendChild(tr);
  };
  Object.entries(props).sort(([a], [b]) => a.localeCompare(b)).forEach(([k, v]) => addRow(k, v, false));
  const status = h("div", null);
  const save = h("button", { type: "submit", "data-testid": "save-properties" }, "Save properties");
  const form = h(
    "form",
    { class: "properties" },
    h("table", { class: "grid" }, h("thead", null, h("tr", null, h("th", null, "property"), h("th", null, "value"), h("th", null, ""))), rows),
    h("div", { class: "row" }, h("button", { type: "button", class: "secondary", onclick: () => addRow("", "", true) }, "Add property"), save),
    status,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    status.replaceChildren();
    const updates: Record<string, string> = {};
    for (const tr of Array.from(rows.querySelectorAll("tr"))) {
      const [k, v] = Array.from(tr.querySelectorAll("input")).map((i) => i.value.trim());
      if (!k) continue;
      if (props[k] !== v) updates[k] = v;
    }
    const removals = [...removed].filter((k) => !(k in updates));
    if (Object.keys(updates).length === 0 && removals.length === 0) {
      status.replaceChildren(h("p", { class: "muted" }, "Nothing changed."));
      return;
    }
    save.disabled = true;
    try {
      await post(`${path}/properties`, { updates, removals });
      refresh();
    } catch (e) {
      status.replaceChildren(errorBox(e));
      save.disabled = false;
    }
  });
  return card("Properties", form);
}

function sizeLabel(n: number): string {
  return bytes(n).replace(".00", "").replace(".0 ", " ");
}

function filesCard(hist: Histogram | null, partitions: Page<Partition>): HTMLElement {
  const chart = hist
    ? columns(
        hist.buckets.map((b) => ({
          label: b["upper-bytes"] === null ? `≥${sizeLabel(b["lower-bytes"])}` : `<${sizeLabel(b["upper-bytes"])}`,
          parts: [
            { value: b["data-files"], kind: "data", name: "data files" },
            { value: b["delete-files"], kind: "delete", name: "delete files" },
          ],
        })),
        "live files by size",
      )
    : h("p", { class: "empty" }, "File sizes: not available on this server.");
  return card(
    "Files",
    h("p", { class: "muted" }, hist ? `Live files of the current snapshot by size (target file size ${bytes(hist["target-file-size-bytes"])}); data files blue, delete files orange.` : ""),
    chart,
    h("h3", null, "Partitions"),
    table(
      [
        { title: "partition", cell: (p) => h("code", null, p.key) },
        { title: "fragments", cell: (p) => `${p.fragments.count} (${bytes(p.fragments.bytes)})`, num: true },
        { title: "undersized", cell: (p) => num(p["undersized-segments"].count), num: true },
        { title: "eq. deletes", cell: (p) => num(p["equality-deletes"].count), num: true },
        { title: "pos. deletes", cell: (p) => num(p["position-deletes"].count), num: true },
        { title: "health", cell: (p) => h("span", { class: `health-${healthClass(p["health-score"])}` }, String(p["health-score"])), num: true },
        { title: "optimize", cell: (p) => (p.necessary ? [badge(p["optimizing-type"] ?? "yes"), " ", p.reason] : "–") },
      ],
      partitions.items,
      "No partitions with files.",
    ),
  );
}

function snapshotsCard(snaps: Snapshot[], refs: Details["refs"]): HTMLElement {
  const refNames = new Map<number, string[]>();
  for (const [name, r] of Object.entries(refs)) {
    refNames.set(r["snapshot-id"], [...(refNames.get(r["snapshot-id"]) ?? []), name]);
  }
  return card(
    "Snapshots",
    h("p", { class: "legend" }, badge("external"), " ", badge("ingest"), " ", badge("optimize"), " ", badge("maintenance")),
    timeline(
      snaps.map((s) => ({
        t: s["timestamp-ms"],
        kind: s.producer,
        label: `${s["snapshot-id"]} ${s.operation} by ${s.producer} at ${time(s["timestamp-ms"])}`,
        mark: refNames.get(s["snapshot-id"])?.join(", "),
      })),
      "snapshot timeline",
    ),
    table(
      [
        { title: "snapshot", cell: (s) => String(s["snapshot-id"]) },
        { title: "seq", cell: (s) => String(s["sequence-number"]), num: true },
        { title: "time", cell: (s) => time(s["timestamp-ms"]) },
        { title: "operation", cell: (s) => s.operation },
        { title: "producer", cell: (s) => badge(s.producer) },
        { title: "added / removed files", cell: (s) => `${s.summary["added-data-files"] ?? 0} / ${s.summary["deleted-data-files"] ?? 0}`, num: true },
        { title: "refs", cell: (s) => (refNames.get(s["snapshot-id"]) ?? []).map((r) => badge(r, refs[r].type)) },
      ],
      snaps,
      "No snapshots.",
    ),
  );
}

// The table's size and file counts at each snapshot, from the totals Iceberg writes into
// every snapshot summary (total-files-size, total-data-files, total-delete-files).
function growthCard(snaps: Snapshot[]): HTMLElement {
  const ordered = [...snaps].filter((s) => s.summary["total-files-size"] !== undefined).sort((a, b) => a["timestamp-ms"] - b["timestamp-ms"]);
  if (ordered.length === 0) return card("Size over time", h("p", { class: "empty" }, "No snapshot summary has totals."));
  const total = (s: Snapshot, k: string) => Number(s.summary[k] ?? 0);
  return card(
    "Size over time",
    lines(
      ordered.map((s) => s["timestamp-ms"]),
      [
        { name: "size", kind: "size", values: ordered.map((s) => total(s, "total-files-size")), format: bytes },
        { name: "data files", kind: "files", values: ordered.map((s) => total(s, "total-data-files")), format: num },
        { name: "delete files", kind: "deletes", values: ordered.map((s) => total(s, "total-delete-files")), format: num },
      ],
      "table size and files over time",
    ),
  );
}

function processesCard(path: string, processes: Page<Process>, maintenance: Page<Record<string, unknown>> | null): HTMLElement {
  const status = h("div", null);
  const rows = processes.items.map((p) => {
    const tasks = h("div", { class: "tasks" });
    const showTasks = h("button", { type: "button", class: "link-button", "data-testid": "show-tasks" }, "tasks");
    showTasks.addEventListener("click", async () => {
      try {
        const page = await getOptional<Page<Task>>(`${path}/optimizing-processes/${p["process-id"]}/tasks`);
        tasks.replaceChildren(
          page === null
            ? h("p", { class: "empty" }, "Tasks: not available on this server.")
            : table(
                Object.keys(page.items[0] ?? { status: "" }).map((k) => ({ title: k, cell: (t: Task) => (typeof t[k] === "object" ? JSON.stringify(t[k]) : String(t[k] ?? "")) })),
                page.items,
                "No tasks.",
              ),
        );
      } catch (e) {
        tasks.replaceChildren(errorBox(e));
      }
    });
    return { p, tasks, showTasks };
  });
  return card(
    "Optimizing processes",
    status,
    table(
      [
        { title: "id", cell: (r) => String(r.p["process-id"]) },
        { title: "type", cell: (r) => r.p.type },
        { title: "status", cell: (r) => badge(r.p.status) },
        { title: "planned", cell: (r) => time(r.p["plan-time-ms"]) },
        { title: "duration", cell: (r) => duration(r.p["duration-ms"]), num: true },
        { title: "tasks", cell: (r) => [String(r.p["task-count"]), " ", r.showTasks], num: true },
        { title: "files in → out", cell: (r) => `${r.p["rewritten-data-files"]} + ${r.p["removed-delete-files"]} del → ${r.p["new-data-files"]}`, num: true },
        { title: "written", cell: (r) => bytes(r.p["bytes-written"]), num: true },
        { title: "reason / error", cell: (r) => [r.p.error ? h("span", { class: "error-text" }, r.p.error) : r.p.reason, r.tasks] },
        {
          title: "",
          cell: (r) =>
            r.p.status === "running"
              ? actionButton("Cancel", "cancel-process", () => post(`${path}/optimizing-processes/${r.p["process-id"]}/cancel`), status)
              : null,
        },
      ],
      rows,
      "No optimizing process yet.",
    ),
    h("h3", null, "Maintenance runs"),
    maintenance === null
      ? h("p", { class: "empty" }, "Maintenance runs: not available on this server.")
      : table(
          Object.keys(maintenance.items[0] ?? {}).map((k) => ({ title: k, cell: (m: Record<string, unknown>) => (k.endsWith("-ms") && typeof m[k] === "number" ? time(m[k] as number) : String(m[k] ?? "")) })),
          maintenance.items,
          "No maintenance runs yet.",
        ),
  );
}

export async function tablePage(params: string[]): Promise<HTMLElement> {
  const [catalog, ns, name] = params;
  const path = tablePath(catalog, ns, name);
  const [details, partitions, snapshots, processes, hist, maintenance] = await Promise.all([
    get<Details>(path),
    get<Page<Partition>>(`${path}/partitions?page-size=1000&sort=health-score`),
    get<Page<Snapshot>>(`${path}/snapshots?page-size=1000`),
    get<Page<Process>>(`${path}/optimizing-processes?page-size=50`),
    getOptional<Histogram>(`${path}/file-sizes`),
    getOptional<Page<Record<string, unknown>>>(`${path}/maintenance-runs?page-size=20`),
  ]);
  const status = h("div", null);
  const mode = h("select", { name: "mode", "aria-label": "optimize mode" }, ["auto", "minor", "major", "full"].map((m) => h("option", { value: m }, m)));
  const o = details.optimizing;
  const actions = h(
    "div",
    { class: "row actions" },
    mode,
    actionButton("Optimize now", "optimize", () => post(`${path}/optimize`, { mode: mode.value }), status),
    actionButton("Pause", "pause", () => post(`${path}/pause`), status),
    actionButton("Resume", "resume", () => post(`${path}/resume`), status),
  );
  const schema = details.schema;
  const idFields = new Set(schema?.["identifier-field-ids"] ?? []);
  const fieldName = (id: number) => schema?.fields.find((f) => f.id === id)?.name ?? `#${id}`;
  return h(
    "div",
    null,
    h("p", { class: "crumbs" }, link(`/catalogs/${enc(catalog)}`, catalog), " / ", link(`/catalogs/${enc(catalog)}?ns=${enc(ns)}`, ns)),
    h("h1", null, details.identifier, " ", h("span", { "data-testid": "optimizing-status" }, badge(o.status))),
    h(
      "p",
      { class: "muted" },
      `Format v${details["format-version"]} · ${details["snapshot-count"]} snapshot(s) · updated ${ago(details["last-updated-ms"])} · last plan ${ago(o["last-plan-ms"])}` +
        (o["status-reason"] ? ` · ${o["status-reason"]}` : "") +
        (o.enabled ? "" : " · self-optimizing disabled"),
    ),
    o["config-error"] ? h("p", { class: "error" }, `Self-optimizing configuration error: ${o["config-error"]}`) : null,
    actions,
    status,
    h("div", { class: "cols" }, healthCard(details.health), card(
      "Location",
      h("dl", { class: "settings" }, h("dt", null, "location"), h("dd", null, details.location), h("dt", null, "metadata"), h("dd", null, details["metadata-location"]), h("dt", null, "uuid"), h("dd", null, details["table-uuid"] ?? "–")),
    )),
    h(
      "div",
      { class: "cols" },
      card(
        "Schema",
        table(
          [
            { title: "id", cell: (f: Field) => String(f.id), num: true },
            { title: "name", cell: (f) => [f.name, idFields.has(f.id) ? [" ", badge("key")] : null] },
            { title: "type", cell: (f) => h("code", null, typeText(f.type)) },
            { title: "required", cell: (f) => (f.required ? "yes" : "no") },
          ],
          schema?.fields ?? [],
        ),
      ),
      h(
        "div",
        null,
        card(
          "Partition spec",
          table(
            [
              { title: "field", cell: (f: NonNullable<Details["partition-spec"]>["fields"][number]) => f.name },
              { title: "transform", cell: (f) => h("code", null, `${f.transform}(${fieldName(f["source-id"])})`) },
            ],
            details["partition-spec"]?.fields ?? [],
            "Unpartitioned.",
          ),
        ),
        card(
          "Sort order",
          table(
            [
              { title: "term", cell: (f: NonNullable<Details["sort-order"]>["fields"][number]) => h("code", null, `${f.transform}(${fieldName(f["source-id"])})`) },
              { title: "direction", cell: (f) => `${f.direction} ${f["null-order"]}` },
            ],
            details["sort-order"]?.fields ?? [],
            "Unsorted.",
          ),
        ),
      ),
    ),
    propertiesCard(path, details.properties),
    filesCard(hist, partitions),
    snapshotsCard(snapshots.items, details.refs),
    growthCard(snapshots.items),
    processesCard(path, processes, maintenance),
  );
}

const TABLES_PAGE = 200;

// A row of /api/v1/tables: the optimizing state and, once evaluated, the statistics.
interface ManagedTable {
  catalog: string;
  namespace: string;
  name: string;
  identifier: string;
  status: string;
  "status-reason": string;
  "last-plan-ms": number;
  "data-files": number | null;
  "delete-files": number | null;
  "total-bytes": number | null;
  "health-score": number | null;
}

export async function tablesPage(_params: string[], query: URLSearchParams): Promise<HTMLElement> {
  const q = query.get("q") ?? "";
  const sort = query.get("sort") ?? "identifier";
  const pageToken = query.get("page-token") ?? "";
  // The page's own URL for a filter, sort and page.
  const href = (over: { q?: string; sort?: string; token?: string }): string => {
    const p = new URLSearchParams();
    const qv = over.q ?? q;
    const sv = over.sort ?? sort;
    if (qv) p.set("q", qv);
    if (sv !== "identifier") p.set("sort", sv);
    if (over.token) p.set("page-token", over.token);
    const s = p.toString();
    return s ? `/tables?${s}` : "/tables";
  };
  const api = new URLSearchParams({ "page-size": String(TABLES_PAGE), sort });
  if (q) api.set("q", q);
  if (pageToken) api.set("page-token", pageToken);
  const tables = await get<Page<ManagedTable>>(`/api/v1/tables?${api.toString()}`);
  const next = tables["next-page-token"];
  const search = h("input", { type: "search", name: "q", value: q, placeholder: "filter by name" });
  const form = h("form", { class: "row" }, search, h("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    history.pushState(null, "", href({ q: search.value }));
    refresh();
  });
  // A column title that sorts by its key: ascending first, descending on a second click.
  const sorted = (title: string, key: string, descendingFirst = false): HTMLElement => {
    const current = sort === key ? "asc" : sort === `-${key}` ? "desc" : "";
    const target = current === "asc" ? `-${key}` : current === "desc" ? key : descendingFirst ? `-${key}` : key;
    return link(href({ sort: target }), `${title}${current === "asc" ? " ▲" : current === "desc" ? " ▼" : ""}`);
  };
  return h(
    "div",
    null,
    h("h1", null, "Tables"),
    h("p", { class: "muted" }, "Every table of every catalog; one the optimizer has not evaluated yet shows –."),
    form,
    card(
      `${tables.total} table(s)`,
      table(
        [
          { title: sorted("table", "identifier"), cell: (t: ManagedTable) => link(tableHref(t), `${t.catalog}.${t.identifier}`) },
          { title: sorted("status", "status"), cell: (t) => badge(t.status) },
          { title: sorted("data files", "data-files", true), cell: (t) => num(t["data-files"]), num: true },
          { title: sorted("delete files", "delete-files", true), cell: (t) => num(t["delete-files"]), num: true },
          { title: sorted("size", "total-bytes", true), cell: (t) => bytes(t["total-bytes"]), num: true },
          { title: sorted("health", "health-score"), cell: (t) => String(t["health-score"] ?? "–"), num: true },
          { title: sorted("last plan", "last-plan-ms", true), cell: (t) => ago(t["last-plan-ms"]) },
        ],
        tables.items,
        q ? "No table matches the filter." : "No catalog holds a table yet.",
      ),
      h(
        "p",
        { class: "row" },
        pageToken ? link(href({}), "First page") : null,
        next ? link(href({ token: next }), "Next page") : null,
      ),
    ),
  );
}
