import { Schema } from "effect"
import { ApiKeyId, ProjectId } from "./Ids.js"

export const Scope = Schema.Literal("posts:read", "posts:write", "posts:approve")
export type Scope = typeof Scope.Type

/** Who holds a key: an automated agent or a person. Fixed when the key is created. */
export const ActorKind = Schema.Literal("agent", "human")
export type ActorKind = typeof ActorKind.Type

/**
 * How a key's request reached Herald: the REST API, the MCP connector or the SDK called in process.
 * (The `herald` CLI's one post command, `herald import`, calls the REST API.)
 */
export const Surface = Schema.Literal("rest", "mcp", "sdk")
export type Surface = typeof Surface.Type

/** The caller behind a request, as established from its API key. */
export class Principal extends Schema.Class<Principal>("Principal")({
  projectId: ProjectId,
  keyId: ApiKeyId,
  /** The key's name when the request was made ("" for an unnamed key), kept on what it does. */
  keyName: Schema.optionalWith(Schema.String, { default: () => "" }),
  kind: ActorKind,
  scopes: Schema.Array(Scope),
  dailyPostCap: Schema.NullOr(Schema.Int.pipe(Schema.positive())),
  /** Where the request came through; REST unless the MCP connector or the SDK says otherwise (`via`). */
  surface: Schema.optionalWith(Surface, { default: () => "rest" as const })
}) {
  has(scope: Scope): boolean {
    return this.scopes.includes(scope)
  }

  /** The same caller, come through another surface. */
  via(surface: Surface): Principal {
    return new Principal({ ...this, surface }, true)
  }
}
