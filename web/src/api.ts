// The management API client: the only way the dashboard reads or changes anything.
// With authentication on, a bearer token from /v1/oauth/tokens (OAuth2 client credentials)
// is kept in sessionStorage and sent on every call; a 401 sends the user to the login page.

const TOKEN_KEY = "floe.token";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string = "",
  ) {
    super(message);
  }
  // A route or method the server does not have (an older server): 404 "no such route", or
  // 405 where the path exists for other methods.
  get notAvailable(): boolean {
    return (this.status === 404 && /no such route/i.test(this.message)) || this.status === 405;
  }
}

export interface Page<T> {
  items: T[];
  total: number;
  "next-page-token"?: string;
}

let onUnauthorized: () => void = () => {};

export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function logout(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

// Snapshot ids are 64-bit: past 2^53 a JS number would round them. With the parser's
// source text (JSON.parse source access), such integers stay exact as strings.
function keepLargeIntegers(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === "number" && !Number.isSafeInteger(value) && context?.source && /^-?\d+$/.test(context.source)) {
    return context.source;
  }
  return value;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) {
    onUnauthorized();
    throw new ApiError(401, "sign in to continue", "NotAuthorizedException");
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text, keepLargeIntegers) : undefined;
  } catch {
    throw new ApiError(res.status, `${method} ${path}: not JSON (${res.status})`);
  }
  if (!res.ok) {
    const err = (json as { error?: { message?: string; type?: string } } | undefined)?.error;
    throw new ApiError(res.status, err?.message ?? `${method} ${path}: ${res.status}`, err?.type ?? "");
  }
  return json as T;
}

export const get = <T>(path: string) => call<T>("GET", path);
export const post = <T>(path: string, body?: unknown) => call<T>("POST", path, body);
export const put = <T>(path: string, body?: unknown) => call<T>("PUT", path, body);
export const del = <T>(path: string) => call<T>("DELETE", path);

// A GET of a route that may not exist on this server: null on 404 "no such route", so the
// page shows "not available" instead of an error. A 404 for a named thing still throws.
export async function getOptional<T>(path: string): Promise<T | null> {
  try {
    return await get<T>(path);
  } catch (e) {
    if (e instanceof ApiError && e.notAvailable) return null;
    throw e;
  }
}

// OAuth2 client credentials (RFC 6749 §4.4) at the Iceberg REST token endpoint.
export async function login(clientId: string, clientSecret: string): Promise<void> {
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: clientId,
    client_secret: clientSecret,
    scope: "catalog",
  });
  const res = await fetch("/v1/oauth/tokens", {
    method: "POST",
    // The endpoint's 401 carries a Basic challenge (RFC 6749 §5.2); without credentials the
    // browser hands the 401 to this code instead of opening its own sign-in dialog.
    credentials: "omit",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: form.toString(),
  });
  const json = (await res.json().catch(() => ({}))) as {
    access_token?: string;
    error_description?: string;
    error?: string | { message?: string };
  };
  if (!res.ok || !json.access_token) {
    const why =
      json.error_description ??
      (typeof json.error === "string" ? json.error : json.error?.message) ??
      `status ${res.status}`;
    throw new ApiError(res.status, `sign-in refused: ${why}`);
  }
  sessionStorage.setItem(TOKEN_KEY, json.access_token);
}

export function enc(s: string): string {
  return encodeURIComponent(s);
}

export function tablePath(catalog: string, ns: string, table: string): string {
  return `/api/v1/catalogs/${enc(catalog)}/namespaces/${enc(ns)}/tables/${enc(table)}`;
}
