// The simulator as its own process:
//   npx tsx packages/publishers/src/simulator/serve.ts [--port 4010] [--host 127.0.0.1] [--latency 120-600]
//     [--retry-after 30] [--timeout-hold 35000]
// Prints one JSON line {"url": ...} once it listens; stops on SIGTERM or SIGINT.
import { parseArgs } from "node:util"
import { startSimulator } from "./SimulatorServer.js"

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "4010" },
    host: { type: "string", default: "127.0.0.1" },
    latency: { type: "string", default: "120-600" },
    "retry-after": { type: "string", default: "30" },
    "timeout-hold": { type: "string", default: "35000" }
  }
})

const number = (name: string, text: string) => {
  const value = Number(text)
  if (!Number.isFinite(value) || value < 0) {
    process.stderr.write(`--${name} must be a non-negative number, not ${JSON.stringify(text)}\n`)
    process.exit(2)
  }
  return value
}

const [min = "0", max = min] = values.latency.split("-")
const running = await startSimulator({
  host: values.host,
  port: number("port", values.port),
  latency: { minMs: number("latency", min), maxMs: number("latency", max) },
  retryAfterSeconds: number("retry-after", values["retry-after"]),
  timeoutHoldMs: number("timeout-hold", values["timeout-hold"])
})
process.stdout.write(`${JSON.stringify({ url: running.url })}\n`)
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => void running.close().then(() => process.exit(0)))
}
