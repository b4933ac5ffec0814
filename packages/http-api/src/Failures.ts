import { HttpApiBuilder, HttpApiError, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import { HeraldApi } from "./Api.js"
import { errorResponse, internalError, invalidRequest, isHttpError, refusedFields } from "./HttpErrors.js"

const isRouteNotFound = (error: unknown): error is { readonly request: { readonly url: string } } =>
  typeof error === "object" && error !== null && "_tag" in error && error._tag === "RouteNotFound"

/**
 * Whether the path's percent-escapes do not decode to UTF-8 (`%zz`, `%ED%A0%80`): the router
 * matches no route for such a path, yet the request is malformed rather than aimed at nowhere.
 */
const undecodablePath = (url: string): boolean => {
  try {
    decodeURIComponent(url.split("?", 1)[0]!)
    return false
  } catch {
    return true
  }
}

/**
 * The last word on every failure: each error class answers with its own status and body, a request
 * that does not match its schema a 400 naming every invalid field, an unknown path a JSON 404, and
 * anything unexpected (a defect) a 500 that says nothing about what broke; the cause goes to the
 * log only.
 */
export const FailuresLive = HttpApiBuilder.middleware(HeraldApi, (app) =>
  app.pipe(
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        const error: unknown = failure.value
        if (error instanceof HttpApiError.HttpApiDecodeError) return Effect.succeed(errorResponse(invalidRequest(error.issues)))
        if (isHttpError(error)) return Effect.succeed(errorResponse(error))
        if (isRouteNotFound(error)) {
          return Effect.succeed(
            undecodablePath(error.request.url)
              ? errorResponse(refusedFields([{ field: "path", account: null, message: "is not percent-encoded UTF-8" }]))
              : HttpServerResponse.unsafeJson({ error: "no such endpoint", code: "not_found" }, { status: 404 })
          )
        }
      }
      return Effect.logError("request failed inside Herald", cause).pipe(Effect.as(errorResponse(internalError)))
    })
  ))
