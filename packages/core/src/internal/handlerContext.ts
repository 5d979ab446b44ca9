/**
 * Running a definition's handler: with the request's RequestContext and the context its Layer captured.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"
import { RequestContext, type RequestContextService } from "../RequestContext.js"
import * as FastPath from "./engine/fastPath.js"
import { RequestContextImpl } from "./requestContextImpl.js"

/**
 * Provides a handler with the current request's context and the services its Layer was built with. The context is
 * swapped in for the handler (`FastPath.withContext`) rather than provided with `Effect.provide`, whose
 * acquire/release per call costs several times a whole in-memory round trip's own work (docs/benchmarks.md, rows
 * "in-memory tools/call"). Every handler runs in a fiber of its own, and the request is bound to that fiber
 * (interrupting it aborts the request's signal).
 */
export const runHandler = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  captured: Context.Context<Exclude<R, RequestContext>>,
  request: RequestContextService
): Effect.Effect<A, E> =>
  Effect.withFiberRuntime((fiber) => {
    if (request instanceof RequestContextImpl) request.runsOn(fiber)
    const context = Context.add(captured as Context.Context<never>, RequestContext, request)
    // The request's span (when its connection traces) stays the parent of what the handler traces.
    const span = fiber.currentSpan
    return FastPath.withContext(
      fiber,
      span === undefined ? context : Context.add(context, Tracer.ParentSpan, span),
      effect as Effect.Effect<A, E>
    )
  })
