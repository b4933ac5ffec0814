import { readFileSync } from "node:fs"

/** CPU milliseconds these processes have used so far (user + system, from /proc; null elsewhere). */
export const cpuMsOf = (pids: ReadonlyArray<number>): number | null => {
  try {
    return pids.reduce((sum, pid) => {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
      return sum + (Number(fields[11]) + Number(fields[12])) * (1000 / 100)
    }, 0)
  } catch {
    return null
  }
}
