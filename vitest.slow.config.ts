import { runConfig } from "./vitest.config.ts"
import { slowProjects } from "./vitest.workspace.ts"

/** `npm run test:slow`: the slow end-to-end files alone, each listed with its reason in vitest.workspace.ts (`slow`). */
export default runConfig(slowProjects)
