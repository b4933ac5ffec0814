import { createRequire } from "node:module"
import * as Path from "node:path"

/**
 * The built dashboard the server serves at /dashboard/: packages/dashboard's `npm run build`, which
 * `npm start` runs first when it is stale (scripts/build.mjs), as it does every package's build.
 */
export const dashboardDir = Path.join(Path.dirname(createRequire(import.meta.url).resolve("@herald/dashboard/package.json")), "dist")
