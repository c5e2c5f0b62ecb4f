import { login } from "../api";
import { errorBox, h } from "../dom";
import { navigate } from "../router";

// OAuth2 client credentials: the principal's client id and secret from floe.yaml `auth`.
export async function loginPage(_params: string[], query: URLSearchParams): Promise<HTMLElement> {
  const id = h("input", { name: "client_id", autocomplete: "username", required: true });
  const secret = h("input", { name: "client_secret", type: "password", autocomplete: "current-password", required: true });
  const status = h("div", null);
  const form = h(
    "form",
    { class: "login" },
    h("h1", null, "Sign in to floe"),
    h("label", null, "Client id", id),
    h("label", null, "Client secret", secret),
    h("button", { type: "submit" }, "Sign in"),
    status,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    status.replaceChildren();
    try {
      await login(id.value, secret.value);
      const next = query.get("next");
      navigate(next && next.startsWith("/") && !next.startsWith("//") ? next : "/", true);
    } catch (e) {
      status.replaceChildren(errorBox(e));
    }
  });
  return form;
}
