import { Effect, Option } from "effect"
import type { Delivery } from "./Delivery.js"
import { DeliveryNotFound, PostNotFound, PostSuperseded } from "./Errors.js"
import type { DeliveryId, PostId, ProjectId } from "./Ids.js"
import { type PostRecord, PostStore } from "./ports/PostStore.js"

/** A live post of the project; an edited (superseded) one points the caller to its successor. */
export const loadPost = (
  projectId: ProjectId,
  id: PostId
): Effect.Effect<PostRecord, PostNotFound | PostSuperseded, PostStore> =>
  Effect.gen(function*() {
    const found = yield* PostStore.pipe(Effect.flatMap((store) => store.find(projectId, id)))
    if (Option.isNone(found)) return yield* new PostNotFound({ postId: id })
    const successor = found.value.post.supersededBy
    if (successor !== null) return yield* new PostSuperseded({ postId: id, successorId: successor })
    return found.value
  })

export const loadDelivery = (
  projectId: ProjectId,
  id: DeliveryId
): Effect.Effect<{ readonly record: PostRecord; readonly delivery: Delivery }, DeliveryNotFound, PostStore> =>
  Effect.gen(function*() {
    const found = yield* PostStore.pipe(Effect.flatMap((store) => store.findByDelivery(projectId, id)))
    const delivery = Option.flatMap(found, (record) => Option.fromNullable(record.deliveries.find((d) => d.id === id)))
    if (Option.isNone(found) || Option.isNone(delivery)) return yield* new DeliveryNotFound({ deliveryId: id })
    return { record: found.value, delivery: delivery.value }
  })
