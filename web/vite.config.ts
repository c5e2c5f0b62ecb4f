import { defineConfig } from "vite";

// The output directory comes from the build (CMake passes --outDir build/<preset>/web);
// `npm run build` alone writes dist/. Assets get content-hashed names under assets/,
// which the server caches for a year (src/floe/server/web_assets.h).
export default defineConfig({
  base: "/",
  build: { outDir: "dist", target: "es2022", sourcemap: false, chunkSizeWarningLimit: 300 },
  server: {
    // `npx vite` for development, against a `floe server` on the default port.
    proxy: { "/api": "http://127.0.0.1:8181", "/v1": "http://127.0.0.1:8181" },
  },
});
