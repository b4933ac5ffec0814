import { Schema } from "effect"
import { ApiKeyId, ProjectId } from "./Ids.js"

export const Scope = Schema.Literal("posts:read", "posts:write", "posts:approve")
export type Scope = typeof Scope.Type

/** Who holds a key: an automated agent or a person. Fixed when the key is created. */
export const ActorKind = Schema.Literal("agent", "human")
export type ActorKind = typeof ActorKind.Type

/** The caller behind a request, as established from its API key. */
export class Principal extends Schema.Class<Principal>("Principal")({
  projectId: ProjectId,
  keyId: ApiKeyId,
  kind: ActorKind,
  scopes: Schema.Array(Scope),
  dailyPostCap: Schema.NullOr(Schema.Int.pipe(Schema.positive()))
}) {
  has(scope: Scope): boolean {
    return this.scopes.includes(scope)
  }
}
