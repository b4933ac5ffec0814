// What a new user writes after `npm install @herald/app`: an embedded Herald, one post, closed.
// PackedInstall.test.ts compiles it against the packed tarballs with ./tsconfig.json and runs it.
import { createHerald } from "@herald/app"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dataDir = mkdtempSync(join(tmpdir(), "herald-consumer-"))
const herald = await createHerald({ publicUrl: "http://consumer.test", dataDir, demo: true })
try {
  const post = await herald.api(herald.demoCredentials!.human_key).posts.create({
    payload: { caption: "from a packed install", social_accounts: ["x:herald_demo"], is_draft: true }
  })
  const health = await herald.handler(new Request("http://consumer.test/health"))
  console.log(`consumer: ${JSON.stringify({ post: { id: post.id, status: post.status }, health: health.status })}`)
} finally {
  await herald.close()
  rmSync(dataDir, { recursive: true, force: true })
}
