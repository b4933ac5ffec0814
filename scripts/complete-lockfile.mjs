// The registry these machines reach serves only some platform builds of packages such as rollup
// (@rollup/rollup-<os>-<cpu>[-<abi>]). `npm install` then leaves the other platforms' optional
// dependencies out of package-lock.json, and `npm ci` refuses the lockfile as out of sync. This
// adds the missing entries, marked optional with their os/cpu/libc, so `npm ci` skips them on
// every other platform without fetching anything. Run it after `npm install` changes the lockfile.
import { readFileSync, writeFileSync } from "node:fs"

const file = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(file, "utf8"))
const oses = ["android", "darwin", "freebsd", "linux", "openbsd", "openharmony", "win32"]
const cpus = ["arm64", "arm", "x64", "ia32", "loong64", "ppc64", "riscv64", "s390x"]

const platformOf = (name) => {
  const parts = name.split("/").pop().split("-")
  const at = parts.findIndex((part) => oses.includes(part))
  if (at < 0 || !cpus.includes(parts[at + 1])) return undefined
  const [os, cpu, abi] = parts.slice(at, at + 3)
  const libc = os !== "linux" ? undefined : abi?.startsWith("musl") ? "musl" : abi?.startsWith("gnu") ? "glibc" : undefined
  return { os, cpu, libc }
}

let added = 0
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const where = `${path === "" ? "" : `${path}/`}node_modules/${name}`
    if (lock.packages[where] !== undefined || lock.packages[`node_modules/${name}`] !== undefined) continue
    const platform = platformOf(name)
    if (platform === undefined) continue
    lock.packages[`node_modules/${name}`] = {
      version,
      cpu: [platform.cpu],
      ...(entry.dev === true ? { dev: true } : {}),
      ...(platform.libc === undefined ? {} : { libc: [platform.libc] }),
      optional: true,
      os: [platform.os]
    }
    added++
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))))
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`complete-lockfile: added ${added} platform entries`)
