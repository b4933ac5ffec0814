/** graph.threads.net as Herald calls it (meta/GraphCalls). */
import { graphCalls, graphRequest } from "../meta/GraphCalls.js"

export const network = "Threads"

export const { send, sendJson } = graphCalls(network)

/** A call to the versioned Graph API with the user's token. */
export const graph = graphRequest("threads")
