/**
 * Running a definition's handler: with the request's RequestContext and the context its Layer captured.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { RequestContext, type RequestContextService } from "../RequestContext.js"
import { RequestContextImpl } from "./requestContextImpl.js"

/**
 * Provides a handler with the current request's context and the services its Layer was built with.
 *
 * The fiber's context is swapped for the handler and swapped back when it succeeds or fails, rather than through
 * `Effect.provide` (an acquire/release per call, several times the cost of a whole in-memory round trip's own
 * work). An interrupted handler's fiber ends with it: every handler runs in a fiber of its own,
 * and the request is bound to that fiber (interrupting it aborts the request's signal).
 */
export const runHandler = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  captured: Context.Context<Exclude<R, RequestContext>>,
  request: RequestContextService
): Effect.Effect<A, E> =>
  Effect.withFiberRuntime((fiber) => {
    if (request instanceof RequestContextImpl) request.runsOn(fiber)
    const restore = FiberRef.set(FiberRef.currentContext, fiber.getFiberRef(FiberRef.currentContext))
    return Effect.zipRight(
      FiberRef.set(FiberRef.currentContext, Context.add(captured as Context.Context<never>, RequestContext, request)),
      Effect.matchCauseEffect(effect as Effect.Effect<A, E>, {
        onSuccess: (a) => Effect.as(restore, a),
        onFailure: (cause) => Effect.zipRight(restore, Effect.failCause(cause))
      })
    )
  })
