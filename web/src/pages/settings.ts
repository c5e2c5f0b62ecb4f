import { get } from "../api";
import { card, h } from "../dom";

// The effective server configuration; the server masks secrets before they get here.
function tree(value: unknown, path = ""): HTMLElement {
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    return h(
      "dl",
      { class: "settings" },
      entries.map(([k, v]) => [
        h("dt", null, k),
        h("dd", { "data-key": path ? `${path}.${k}` : k }, typeof v === "object" && v !== null ? tree(v, path ? `${path}.${k}` : k) : String(v)),
      ]),
    );
  }
  return h("span", null, String(value));
}

export async function settingsPage(): Promise<HTMLElement> {
  const settings = await get<Record<string, unknown>>("/api/v1/settings");
  return h(
    "div",
    null,
    h("h1", null, "Settings"),
    h("p", { class: "muted" }, "The server's effective configuration (floe.yaml, environment, flags). Passwords and secrets are masked by the server."),
    card("Server", tree(settings)),
  );
}
