import { enc, get, Page, post, put } from "../api";
import { badge, card, errorBox, h, link, table, time } from "../dom";
import { navigate, refresh } from "../router";
import { tableHref } from "./overview";

interface Catalog {
  name: string;
  type: string;
  uri?: string;
  warehouse?: string;
  properties: Record<string, string>;
  "created-at-ms": number;
  default: boolean;
}

interface Namespace {
  name: string;
  levels: string[];
}

interface TableItem {
  name: string;
  namespace: string;
  identifier: string;
  status: string;
}

function parseProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t) continue;
    const eq = t.indexOf("=");
    if (eq <= 0) throw new Error(`property line "${t}" is not key=value`);
    out[t.slice(0, eq).trim()] = t.slice(eq + 1).trim();
  }
  return out;
}

// The attach / edit form. Masked values ("****") sent back unchanged keep the stored ones.
function catalogForm(existing: Catalog | null): HTMLElement {
  const name = h("input", { name: "name", required: true, value: existing?.name ?? "", readonly: existing !== null });
  const type = h(
    "select",
    { name: "type" },
    ["sql", "rest", "filesystem", "internal"].map((t) => h("option", { value: t, selected: existing?.type === t }, t)),
  );
  const uri = h("input", { name: "uri", value: existing?.uri ?? "", placeholder: "sqlite:/abs/path.db, postgresql://…, http://…" });
  const warehouse = h("input", { name: "warehouse", value: existing?.warehouse ?? "", placeholder: "/abs/path or s3://bucket/path" });
  const props = h("textarea", { name: "properties", rows: 3, placeholder: "key=value, one per line" });
  props.value = Object.entries(existing?.properties ?? {}).map(([k, v]) => `${k}=${v}`).join("\n");
  const status = h("div", null);
  const form = h(
    "form",
    { class: "form", "data-testid": existing ? "edit-catalog" : "attach-catalog" },
    h("label", null, "Name", name),
    h("label", null, "Type", type),
    h("label", null, "URI", uri),
    h("label", null, "Warehouse", warehouse),
    h("label", null, "Properties", props),
    h("button", { type: "submit" }, existing ? "Save" : "Attach"),
    status,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    status.replaceChildren();
    try {
      const body: Record<string, unknown> = { name: name.value.trim(), type: type.value, properties: parseProperties(props.value) };
      if (uri.value.trim()) body.uri = uri.value.trim();
      if (warehouse.value.trim()) body.warehouse = warehouse.value.trim();
      if (existing) {
        await put(`/api/v1/catalogs/${enc(existing.name)}`, body);
        refresh();
      } else {
        await post("/api/v1/catalogs", body);
        navigate(`/catalogs/${enc(String(body.name))}`);
      }
    } catch (e) {
      status.replaceChildren(errorBox(e));
    }
  });
  return form;
}

export async function catalogsPage(): Promise<HTMLElement> {
  const page = await get<Page<Catalog>>("/api/v1/catalogs?page-size=1000");
  return h(
    "div",
    null,
    h("h1", null, "Catalogs"),
    card(
      `${page.total} catalog(s)`,
      table(
        [
          { title: "name", cell: (c) => [link(`/catalogs/${enc(c.name)}`, c.name), c.default ? badge("default") : null] },
          { title: "type", cell: (c) => badge(c.type) },
          { title: "uri / warehouse", cell: (c) => c.uri ?? c.warehouse ?? "" },
          { title: "created", cell: (c) => time(c["created-at-ms"]) },
        ],
        page.items,
      ),
    ),
    card("Attach a catalog", catalogForm(null)),
  );
}

export async function catalogPage(params: string[], query: URLSearchParams): Promise<HTMLElement> {
  const [name] = params;
  const ns = query.get("ns") ?? "";
  const base = `/api/v1/catalogs/${enc(name)}`;
  const [catalog, namespaces, tables] = await Promise.all([
    get<Catalog>(base),
    get<Page<Namespace>>(`${base}/namespaces?page-size=1000${ns ? `&parent=${enc(ns)}` : ""}`),
    ns ? get<Page<TableItem>>(`${base}/namespaces/${enc(ns)}/tables?page-size=1000`) : Promise.resolve(null),
  ]);
  const crumbs = [link(`/catalogs/${enc(name)}`, name)];
  const levels = ns ? ns.split(".") : [];
  levels.forEach((_, i) => {
    const prefix = levels.slice(0, i + 1).join(".");
    crumbs.push(link(`/catalogs/${enc(name)}?ns=${enc(prefix)}`, levels[i]));
  });
  return h(
    "div",
    null,
    h("h1", null, "Catalog ", catalog.name, " ", badge(catalog.type)),
    h("p", { class: "crumbs" }, crumbs.flatMap((c, i) => (i ? [" / ", c] : [c]))),
    h(
      "div",
      { class: "cols" },
      card(
        ns ? `Namespaces in ${ns}` : "Namespaces",
        table(
          [{ title: "namespace", cell: (n) => link(`/catalogs/${enc(name)}?ns=${enc(n.name)}`, n.name) }],
          namespaces.items,
          "No namespaces here.",
        ),
      ),
      tables
        ? card(
            `Tables in ${ns}`,
            table(
              [
                { title: "table", cell: (t) => link(tableHref({ catalog: name, namespace: t.namespace, name: t.name }), t.name) },
                { title: "optimizing", cell: (t) => badge(t.status) },
              ],
              tables.items,
              "No tables in this namespace.",
            ),
          )
        : card("Tables", h("p", { class: "muted" }, "Pick a namespace to see its tables.")),
    ),
    catalog.default ? null : card("Edit", catalogForm(catalog)),
  );
}
