import { Layer } from "effect"
import {
  AccountId,
  BuiltinClassifier,
  ApiKeyId,
  type ApprovalMode,
  noGuardrails,
  type Platform,
  Principal,
  Project,
  ProjectId,
  SocialAccount
} from "@herald/core"
import {
  InMemoryData,
  makeInMemoryStores,
  noMediaIngest,
  plainApprovalLinks,
  publishersOf,
  RecordingPublisher,
  sequentialIds
} from "@herald/core/memory"

/** A project with accounts, keys and every port wired to in-memory adapters. */
export const makeWorld = (options: {
  readonly approval: ApprovalMode
  readonly platforms?: ReadonlyArray<Platform>
  readonly signature?: string
  readonly dailyPostCap?: number | null
}) => {
  const data = new InMemoryData()
  const projectId = ProjectId.make("10000000-0000-4000-8000-000000000001")
  data.projects.set(projectId, new Project({
    id: projectId,
    name: "Acme",
    timezone: "Europe/Paris",
    approval: options.approval,
    signature: options.signature ?? "",
    guardrails: noGuardrails,
    plan: "active"
  }))
  const accounts = (options.platforms ?? ["x", "facebook", "bluesky"]).map((platform, index) =>
    new SocialAccount({
      id: AccountId.make(`20000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`),
      projectId,
      platform,
      username: `acme_${platform}`,
      route: "simulator",
      status: "active"
    })
  )
  for (const account of accounts) data.accounts.set(account.id, account)
  const key = (kind: "agent" | "human", n: number) =>
    new Principal({
      projectId,
      keyId: ApiKeyId.make(`30000000-0000-4000-8000-${String(n).padStart(12, "0")}`),
      kind,
      scopes: kind === "agent" ? ["posts:read", "posts:write"] : ["posts:read", "posts:write", "posts:approve"],
      dailyPostCap: options.dailyPostCap ?? null
    })
  const publisher = new RecordingPublisher()
  const layer = Layer.mergeAll(
    makeInMemoryStores(data),
    sequentialIds(),
    plainApprovalLinks,
    noMediaIngest,
    publishersOf(publisher),
    BuiltinClassifier
  )
  return { data, projectId, accounts, agent: key("agent", 1), human: key("human", 2), publisher, layer }
}
