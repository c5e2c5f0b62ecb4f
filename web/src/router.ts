// Navigation without page loads: pages call navigate() and refresh(); main.ts installs the
// renderer. A module of its own so that pages and the shell do not import each other.
let renderer: () => void = () => {};

export function setRenderer(render: () => void): void {
  renderer = render;
}

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  renderer();
}

// Re-renders the current page (after an action changed what it shows).
export function refresh(): void {
  renderer();
}
