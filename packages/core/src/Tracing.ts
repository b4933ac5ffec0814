import { Effect, FiberRef, type Tracer } from "effect"

/**
 * Effect.withSpan, taken only while the fiber's tracer is enabled. Effect.withSpan and Effect.fn
 * pay for their span even with the tracer off: a stack capture, and a copy (and comparison) of the
 * fiber's whole context, every service in it, to hold the span, at every call. Herald's own
 * processes run with the tracer off (no exporter is configured), where every request would pay it
 * for nothing (bench/README.md, HTTP: `traced` and `inSpan`); a host that embeds Herald with its
 * tracer on still gets every span.
 */
export const inSpan = (name: string, options?: Tracer.SpanOptions) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => fiber.getFiberRef(FiberRef.currentTracerEnabled) ? Effect.withSpan(self, name, options) : self)

/** Effect.fn(name), with its span taken only while the tracer is enabled (see `inSpan`). */
export const traced = (name: string, options?: Tracer.SpanOptions): Effect.fn.Gen & Effect.fn.NonGen =>
  ((body: (...args: Array<unknown>) => unknown, ...pipeables: Array<(effect: unknown, ...args: Array<unknown>) => unknown>) => {
    const spanned = inSpan(name, options)
    const run: (...args: Array<unknown>) => unknown = Object.prototype.toString.call(body) === "[object GeneratorFunction]"
      ? Effect.fnUntraced(body as () => Generator<never, unknown, never>, ...(pipeables as []))
      : function(this: unknown, ...args: Array<unknown>) {
        return pipeables.reduce((effect, pipeable) => pipeable(effect, ...args), body.apply(this, args))
      }
    return function(this: unknown, ...args: Array<unknown>) {
      return spanned(run.apply(this, args) as Effect.Effect<unknown, unknown, unknown>)
    }
  }) as never
