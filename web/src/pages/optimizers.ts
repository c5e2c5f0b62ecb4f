import { del, enc, getOptional, Page, post } from "../api";
import { card, errorBox, h } from "../dom";
import { refresh } from "../router";
import { genericTable, Item } from "./generic";

function button(text: string, testid: string, run: () => Promise<unknown>, status: HTMLElement): HTMLButtonElement {
  const b = h("button", { type: "button", class: "secondary", "data-testid": testid }, text);
  b.addEventListener("click", async () => {
    b.disabled = true;
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

export async function optimizersPage(): Promise<HTMLElement> {
  const [groups, optimizers] = await Promise.all([
    getOptional<Page<Item>>("/api/v1/optimizer-groups?page-size=1000"),
    getOptional<Page<Item>>("/api/v1/optimizers?page-size=1000"),
  ]);
  const status = h("div", null);
  const name = h("input", { name: "group", placeholder: "group name", required: true });
  // Threads belong to the optimizers that join a group (`floe optimizer --group G`), not to
  // the group.
  const create = h("form", { class: "row" }, name, h("button", { type: "submit" }, "Create group"));
  create.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await post("/api/v1/optimizer-groups", { name: name.value.trim() });
      refresh();
    } catch (e) {
      status.replaceChildren(errorBox(e, "Creating optimizer groups"));
    }
  });
  return h(
    "div",
    null,
    h("h1", null, "Optimizers"),
    status,
    card(
      "Optimizer groups",
      groups === null
        ? h("p", { class: "empty" }, "Optimizer groups: not available on this server.")
        : genericTable(groups.items, "No optimizer group (self-optimizing is off).", [
            {
              title: "",
              cell: (g) =>
                g.kind === "local" || g.name === "local"
                  ? null
                  : button("Remove", "remove-group", () => del(`/api/v1/optimizer-groups/${enc(String(g.name))}`), status),
            },
          ]),
      create,
    ),
    card(
      "Optimizers",
      optimizers === null
        ? h("p", { class: "empty" }, "Standalone optimizers: not available on this server.")
        : genericTable(optimizers.items, "No standalone optimizer is registered.", [
            {
              title: "",
              cell: (o) => {
                const id = o["optimizer-id"] ?? o.id ?? o.token;
                return id === undefined ? null : button("Drain", "drain-optimizer", () => post(`/api/v1/optimizers/${enc(String(id))}/drain`), status);
              },
            },
          ]),
    ),
  );
}
