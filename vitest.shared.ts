import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    passWithNoTests: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { concurrent: false },
    setupFiles: [fileURLToPath(new URL("./vitest.setup.ts", import.meta.url))]
  }
})
