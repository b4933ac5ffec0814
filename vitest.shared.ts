import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

// The packages' exports point at their compiled dist/ for Node and other consumers, and at their
// TypeScript sources under the "herald-source" condition: tests run the sources, built or not.
// The rest is vitest's own default for Node. (vitest.config.ts's globalSetup resolves the same way.)
const conditions = ["herald-source", "node", "development|production"]
export const sourceFirst = { resolve: { conditions }, ssr: { resolve: { conditions } } }

export default defineConfig({
  ...sourceFirst,
  test: {
    passWithNoTests: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { concurrent: false },
    setupFiles: [fileURLToPath(new URL("./vitest.setup.ts", import.meta.url))]
  }
})
