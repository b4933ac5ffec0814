// README's `npm start` on a box without ffprobe: the PATH holds node, npm and sh alone, so the media
// probe must use the ffprobe binary that @ffprobe-installer ships (HERALD_FFPROBE unset).
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, expect, it } from "vitest"
import { listening, stopHerald } from "../HeraldProcess.js"
import { cleanEnv, root } from "./Npm.js"

const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-bare-"))
let child: ChildProcess | undefined
afterAll(async () => {
  if (child !== undefined) await stopHerald(child)
  Fs.rmSync(scratch, { recursive: true, force: true })
})

/** Where a command is found on this process's PATH. */
const which = (command: string) => execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim()

it("npm start with no ffprobe on the PATH answers /health and probes a video with the bundled ffprobe", async () => {
  const bin = Path.join(scratch, "bin")
  Fs.mkdirSync(bin)
  Fs.symlinkSync(process.execPath, Path.join(bin, "node"))
  for (const command of ["npm", "sh"]) Fs.symlinkSync(Fs.realpathSync(which(command)), Path.join(bin, command))
  // The video is made here, by the test's own ffmpeg; Herald never sees that one.
  const video = Path.join(scratch, "clip.mp4")
  execFileSync(which("ffmpeg"), [
    "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=duration=1.5:size=64x48:rate=10",
    "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", video
  ])
  const env = cleanEnv({ PATH: bin, HERALD_DATA_DIR: Path.join(scratch, "data"), PORT: "0", DATABASE_URL: "" })
  delete env.HERALD_FFPROBE
  expect(() => execFileSync("/bin/sh", ["-c", "command -v ffprobe"], { env })).toThrow()

  const started = spawn("npm", ["start"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true })
  child = started
  let output = ""
  const port = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      const match = listening.exec(output)
      if (match !== null) resolve(match[1]!)
    }
    started.stdout.on("data", read)
    started.stderr.on("data", read)
    started.on("exit", (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)))
  })
  const origin = `http://127.0.0.1:${port}`

  const health = await fetch(`${origin}/health`)
  expect(health.status).toBe(200)

  const { human_key } = JSON.parse(Fs.readFileSync(Path.join(scratch, "data", "credentials.json"), "utf8")) as { human_key: string }
  const upload = (fields: Record<string, string>) => {
    const form = new FormData()
    form.append("file", new Blob([Fs.readFileSync(video)], { type: "video/mp4" }), "clip.mp4")
    for (const [name, value] of Object.entries(fields)) form.append(name, value)
    return fetch(`${origin}/api/v1/media`, { method: "POST", headers: { authorization: `Bearer ${human_key}` }, body: form })
  }
  const accepted = await upload({})
  expect(accepted.status).toBe(200)
  expect(await accepted.json()).toMatchObject({ kind: "video" })
  // The video's length is ffprobe's reading: a thumbnail past it is refused with the length.
  const late = await upload({ thumbnail_timestamp_ms: "60000" })
  expect(late.status).toBe(400)
  expect(JSON.stringify(await late.json())).toContain("past the end of the video (1500 ms)")
}, 900_000)
