// The dashboard's shell: navigation, a path router over the History API (the server answers
// every client route with index.html), and the login redirect when authentication is on.
import "./style.css";
import { get, logout, setUnauthorizedHandler, token } from "./api";
import { errorBox, h, link } from "./dom";
import { navigate, setRenderer } from "./router";
import { catalogPage, catalogsPage } from "./pages/catalogs";
import { loginPage } from "./pages/login";
import { optimizersPage } from "./pages/optimizers";
import { overviewPage } from "./pages/overview";
import { settingsPage } from "./pages/settings";
import { tablePage, tablesPage } from "./pages/table";
import { topicPage, topicsPage } from "./pages/topics";

export type Render = (params: string[], query: URLSearchParams) => Promise<HTMLElement>;

const routes: [RegExp, Render, string][] = [
  [/^\/$/, overviewPage, "overview"],
  [/^\/catalogs\/?$/, catalogsPage, "catalogs"],
  [/^\/catalogs\/([^/]+)\/?$/, catalogPage, "catalogs"],
  [/^\/tables\/?$/, tablesPage, "tables"],
  [/^\/tables\/([^/]+)\/([^/]+)\/([^/]+)\/?$/, tablePage, "tables"],
  [/^\/optimizers\/?$/, optimizersPage, "optimizers"],
  [/^\/topics\/?$/, topicsPage, "topics"],
  [/^\/topics\/([^/]+)\/?$/, topicPage, "topics"],
  [/^\/settings\/?$/, settingsPage, "settings"],
  [/^\/login\/?$/, loginPage, "login"],
];

const nav: [string, string, string][] = [
  ["/", "Overview", "overview"],
  ["/catalogs", "Catalogs", "catalogs"],
  ["/tables", "Tables", "tables"],
  ["/optimizers", "Optimizers", "optimizers"],
  ["/topics", "Topics", "topics"],
  ["/settings", "Settings", "settings"],
];

const app = document.getElementById("app")!;
const main = h("main", { id: "main" });
const navList = h("nav", { class: "nav" });
const signOut = h("button", { class: "link-button", type: "button", onclick: () => { logout(); navigate("/login"); } }, "Sign out");
app.append(
  h("header", { class: "top" }, h("a", { href: "/", "data-nav": "1", class: "brand" }, "floe"), navList, h("span", { class: "grow" }), signOut),
  main,
);

let renderSeq = 0;

async function render(): Promise<void> {
  const seq = ++renderSeq;
  const path = location.pathname;
  const query = new URLSearchParams(location.search);
  let found: [Render, string[], string] | null = null;
  for (const [re, page, section] of routes) {
    const m = re.exec(path);
    if (m) {
      found = [page, m.slice(1).map(decodeURIComponent), section];
      break;
    }
  }
  navList.replaceChildren(
    ...nav.map(([href, text, section]) => {
      const a = link(href, text);
      if (found && found[2] === section) a.classList.add("active");
      return a;
    }),
  );
  signOut.hidden = token() === null;
  main.setAttribute("aria-busy", "true");
  main.replaceChildren(h("p", { class: "loading" }, "Loading…"));
  let content: HTMLElement;
  try {
    content = found ? await found[0](found[1], query) : h("section", null, h("h1", null, "Not found"), h("p", null, "No page here. "), link("/", "Overview"));
  } catch (e) {
    content = h("section", null, errorBox(e));
  }
  if (seq !== renderSeq) return; // a newer navigation won
  main.replaceChildren(content);
  main.setAttribute("aria-busy", "false");
  document.title = `floe · ${found ? found[2] : "not found"}`;
}

setRenderer(() => void render());

setUnauthorizedHandler(() => {
  logout();
  if (location.pathname !== "/login") {
    const back = location.pathname + location.search;
    history.replaceState(null, "", `/login?next=${encodeURIComponent(back)}`);
    void render();
  }
});

document.addEventListener("click", (ev) => {
  const a = (ev.target as Element | null)?.closest?.("a[data-nav]") as HTMLAnchorElement | null;
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey) return;
  ev.preventDefault();
  navigate(a.getAttribute("href") ?? "/");
});
window.addEventListener("popstate", () => void render());

// Whether the server wants a token is learnt from the first call: a 401 shows the login.
void get("/api/v1/overview").catch(() => {});
void render();
