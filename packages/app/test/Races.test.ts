import { randomBytes } from "node:crypto"
import { type RunningSimulator, startSimulator } from "@herald/publishers"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { databaseUrl, throwawaySchema } from "./TestDatabase.js"
import { json, startHerald, type TestHerald } from "./TestHerald.js"

/**
 * Many callers at once on each state-changing route of one post or delivery, against the reference
 * server with its workers and a simulator this test reads: exactly one caller wins, every other one
 * gets the answer a caller after the winner gets (a takedown still under way: 409
 * delivery_taken_down), and the platform sees at most one publish and one DELETE per delivery.
 */
const callers = 12

interface Answer {
  readonly status: number
  readonly code: string | null
}

/** The calls started together, their answers in order. */
const race = (calls: ReadonlyArray<() => Promise<Response>>): Promise<ReadonlyArray<Answer>> =>
  Promise.all(calls.map((call) => call())).then((replies) =>
    Promise.all(replies.map(async (reply) => {
      const text = await reply.text()
      const type = reply.headers.get("content-type") ?? ""
      return { status: reply.status, code: type.startsWith("application/json") ? (JSON.parse(text) as { code?: string }).code ?? null : null }
    }))
  )

const times = <A>(n: number, make: (index: number) => A): ReadonlyArray<A> => Array.from({ length: n }, (_, index) => make(index))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const raceSuite = (database: "PGlite" | "PostgreSQL") => () => {
  let herald: TestHerald
  let simulator: RunningSimulator
  let dropSchema = (): Promise<unknown> => Promise.resolve()
  const keys = { human: "", agent: "" }

  beforeAll(async () => {
    // Platform answers slow enough that concurrent callers overlap the call they race.
    simulator = await startSimulator({ latency: { minMs: 150, maxMs: 250 } })
    const schema = database === "PostgreSQL" ? await throwawaySchema("herald_races") : undefined
    if (schema !== undefined) dropSchema = schema.drop
    herald = await startHerald({ simulatorUrl: simulator.url, ...(schema === undefined ? {} : { databaseUrl: schema.url }) })
    // Keys of their own: the demo keys' 60 requests a minute would refuse the races.
    const newKey = async (kind: "agent" | "human") => {
      const reply = await herald.call(`/admin/v1/projects/${herald.credentials.project_id}/keys`, {
        method: "POST",
        token: herald.credentials.admin_token,
        json: { kind, scopes: ["posts:read", "posts:write", "posts:approve"], rate_limit_per_minute: 100_000 }
      })
      expect(reply.status).toBe(201)
      return (await json(reply)).key as string
    }
    keys.human = await newKey("human")
    keys.agent = await newKey("agent")
  }, 60_000)
  afterAll(async () => {
    await herald?.close()
    await simulator?.close()
    await dropSchema()
  })

  const api = (method: string, path: string, body?: unknown, key = keys.human) =>
    herald.call(`/api/v1${path}`, { method, token: key, ...(body === undefined ? {} : { json: body }) })

  const receipt = async (postId: string) => json(await api("GET", `/post-results?post_id=${postId}`))

  /** Polls the post's receipt until `until` holds. */
  const waitFor = async (postId: string, until: (receipt: { post_status: string; data: Array<{ id: string; status: string }> }) => boolean) => {
    const deadline = Date.now() + 20_000
    for (;;) {
      const current = await receipt(postId)
      if (until(current)) return current
      if (Date.now() > deadline) throw new Error(`post ${postId} never got there: ${JSON.stringify(current)}`)
      await sleep(50)
    }
  }

  const create = async (caption: string, key = keys.human) => {
    const reply = await api("POST", "/posts", { caption, social_accounts: ["x:herald_demo"] }, key)
    expect(reply.status).toBe(201)
    return json(reply) as Promise<{ id: string; status: string; approval_url?: string }>
  }

  /** A post an agent wrote, waiting for a person (the demo project is in copilot mode). */
  const held = async (caption: string) => {
    const post = await create(caption, keys.agent)
    expect(post.status).toBe("pending_approval")
    return post
  }

  const settled = (postId: string) => waitFor(postId, (current) => ["posted", "partial", "failed"].includes(current.post_status))

  /** The simulator's account of one delivery: publish requests and DELETE requests it received. */
  const platformCalls = (deliveryId: string) => {
    const record = simulator.network.publishes().find((entry) => entry.marker === deliveryId)
    return { publishes: record?.attempts ?? 0, posts: record?.postIds.length ?? 0, deletes: record?.takedowns ?? 0 }
  }

  const winners = (answers: ReadonlyArray<Answer>) => answers.filter((answer) => answer.status < 300)
  const codes = (answers: ReadonlyArray<Answer>) => new Set(answers.filter((answer) => answer.status >= 300).map((answer) => `${answer.status} ${answer.code}`))

  /** The project's emergency stop (docs/emergency-stop.md), on or off. */
  const publishing = async (action: "pause" | "resume") => {
    const reply = await herald.call(`/admin/v1/projects/${herald.credentials.project_id}/publishing/${action}`, {
      method: "POST",
      token: herald.credentials.admin_token,
      json: {}
    })
    expect(reply.status).toBe(200)
  }

  // The races run side by side (it.concurrent): each has a post of its own, and most of its time
  // is the platform's answers and the wait for a publish that should not happen. This one first
  // and on its own, with the project's publishing paused while the callers race: a retry that won
  // would otherwise go out and fail again within the platform's answer time, and a caller slowed
  // by a busy machine would then find the delivery failed again and rightly win a second retry.
  it(`retry × ${callers} of a failed delivery: one retry is queued and the platform sees one more publish`, async () => {
    const post = await create("Refused every time #sim-reject")
    const { data: [delivery] } = await settled(post.id)
    expect(delivery!.status).toBe("failed")
    expect(platformCalls(delivery!.id).publishes).toBe(1)
    await publishing("pause")
    const answers = await race(times(callers, () => () => api("POST", `/post-results/${delivery!.id}/retry`))).finally(() => publishing("resume"))
    expect(winners(answers)).toHaveLength(1)
    expect(codes(answers)).toEqual(new Set(["409 delivery_not_failed"]))
    await waitFor(post.id, (current) => current.post_status === "failed" && current.data[0]!.status === "failed")
    expect(platformCalls(delivery!.id)).toEqual({ publishes: 2, posts: 0, deletes: 0 })
  })

  it.concurrent(`takedown × ${callers}: one DELETE reaches the platform; the others get 409 during the first or after it`, async () => {
    const post = await create("Taken down once")
    const { data: [delivery] } = await settled(post.id)
    expect(delivery!.status).toBe("success")
    const answers = await race(times(callers, () => () => api("POST", `/post-results/${delivery!.id}/takedown`)))
    expect(winners(answers)).toHaveLength(1)
    expect([...codes(answers)].every((code) => code === "409 delivery_taken_down"), [...codes(answers)].join()).toBe(true)
    expect(platformCalls(delivery!.id)).toEqual({ publishes: 1, posts: 1, deletes: 1 })
    const after = await race([() => api("POST", `/post-results/${delivery!.id}/takedown`)])
    expect(after).toEqual([{ status: 409, code: "delivery_taken_down" }])
    expect((await receipt(post.id)).data[0]).toMatchObject({ status: "taken_down", taken_down_at: expect.any(String) })
    expect(platformCalls(delivery!.id).deletes).toBe(1)
  })

  type Route = (post: { readonly id: string; readonly approval_url?: string }) => () => Promise<Response>
  const approve: Route = (post) => () => api("POST", `/posts/${post.id}/approve`, { decision: "approve" })
  const reject: Route = (post) => () => api("POST", `/posts/${post.id}/approve`, { decision: "reject", reason: "no" })
  const remove: Route = (post) => () => api("DELETE", `/posts/${post.id}`)
  const edit: Route = (post) => () => api("PATCH", `/posts/${post.id}`, { caption: "Edited while contested" })
  const link: Route = (post) => () =>
    herald.call(new URL(post.approval_url!).pathname, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "decision=approve"
    })

  const decided = "409 post_not_pending_approval"
  const gone = "404 post_not_found"
  const superseded = "404 post_superseded"

  /**
   * Routes on one held post, called in turn by the callers: `after[winner][route]` is what a caller
   * of `route` gets once `winner`'s change is made ("409 null": the approval page answers in HTML),
   * and the platform sees one publish when an approval won, none otherwise.
   */
  const contests: ReadonlyArray<{
    readonly name: string
    readonly routes: Record<string, Route>
    readonly after: Record<string, Record<string, string>>
  }> = [
    { name: `approve × ${callers}`, routes: { approve }, after: { approve: { approve: decided } } },
    { name: `DELETE × ${callers}`, routes: { remove }, after: { remove: { remove: gone } } },
    {
      name: "approve vs reject",
      routes: { approve, reject },
      after: { approve: { approve: decided, reject: decided }, reject: { approve: decided, reject: decided } }
    },
    {
      name: "approve vs DELETE",
      routes: { approve, remove },
      after: { approve: { approve: decided, remove: "409 post_not_deletable" }, remove: { approve: gone, remove: gone } }
    },
    {
      name: "approve vs PATCH",
      routes: { approve, edit },
      after: { approve: { approve: decided, edit: "400 post_not_editable" }, edit: { approve: superseded, edit: superseded } }
    },
    {
      name: "the approval link's POST vs the API's approve",
      routes: { link, approve },
      after: { link: { link: "409 null", approve: decided }, approve: { link: "409 null", approve: decided } }
    }
  ]

  for (const { after, name, routes } of contests) {
    it.concurrent(`${name}: one caller wins, the others get what a caller after it gets`, async () => {
      const post = await held(`Contested: ${name}`)
      const { data: [delivery] } = await receipt(post.id)
      const names = Object.keys(routes)
      const order = times(callers, (index) => names[index % names.length]!)
      const answers = await race(order.map((route) => routes[route]!(post)))
      const won = answers.flatMap((answer, index) => answer.status < 300 ? [order[index]!] : [])
      expect(won).toHaveLength(1)
      const winner = won[0]!
      answers.forEach((answer, index) => {
        if (answer.status >= 300) expect(`${answer.status} ${answer.code}`, `${order[index]} after ${winner}`).toBe(after[winner]![order[index]!])
      })
      const approved = winner === "approve" || winner === "link"
      // Time for a publish that should not happen to show.
      if (approved) await settled(post.id)
      else await sleep(500)
      expect(platformCalls(delivery!.id)).toEqual({ publishes: approved ? 1 : 0, posts: approved ? 1 : 0, deletes: 0 })
    })
  }

  /** Each caller's answer: the post it names and whether it said repeated. */
  const idempotentRace = async (send: (key: string) => Promise<{ status: number; id: string | null; repeated: boolean; code: string }>) => {
    const key = `race-${randomBytes(6).toString("hex")}`
    const answers = await Promise.all(times(callers, () => send(key)))
    expect(answers.filter((answer) => answer.code === "created"), JSON.stringify(answers)).toHaveLength(1)
    expect(answers.filter((answer) => answer.code === "repeated")).toHaveLength(callers - 1)
    expect(new Set(answers.map((answer) => answer.id)).size).toBe(1)
    const { data: [delivery] } = await settled(answers[0]!.id!)
    expect(platformCalls(delivery!.id)).toEqual({ publishes: 1, posts: 1, deletes: 0 })
  }

  it.concurrent(`POST /posts × ${callers} with one idempotency_key: one post, one publish`, () =>
    idempotentRace(async (key) => {
      const reply = await api("POST", "/posts", { caption: "Sent by many hands", social_accounts: ["x:herald_demo"], idempotency_key: key })
      const body = await json(reply)
      const code = reply.status === 201 ? "created" : reply.status === 200 && body.repeated === true ? "repeated" : `${reply.status} ${body.code}`
      return { status: reply.status, id: body.id ?? null, repeated: body.repeated === true, code }
    }))

  it.concurrent(`POST /posts/bulk × ${callers} with one idempotency_key: one post, one publish`, () =>
    idempotentRace(async (key) => {
      const reply = await api("POST", "/posts/bulk", { rows: [{ caption: "Sent in bulk by many hands", accounts: ["x:herald_demo"], idempotency_key: key }] })
      expect(reply.status).toBe(200)
      const [row] = (await json(reply)).results
      return { status: reply.status, id: row.id, repeated: row.repeated, code: row.code }
    }))
}

describe(`concurrent state changes on PGlite (one session: callers queue, so the races are mild)`, raceSuite("PGlite"))

describe.skipIf(databaseUrl === "")(
  "concurrent state changes on PostgreSQL (skipped without DATABASE_URL: needs PostgreSQL)",
  raceSuite("PostgreSQL")
)
