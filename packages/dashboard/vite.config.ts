import { defineConfig } from "vite"

// Served by the reference server at /dashboard/ (http-api DashboardAssets.ts), from dist/.
export default defineConfig({
  base: "/dashboard/",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", reportCompressedSize: true },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } }
})
