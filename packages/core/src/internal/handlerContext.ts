/**
 * Running a definition's handler: with the request's RequestContext and the context its Layer captured.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { RequestContext, type RequestContextService } from "../RequestContext.js"

/** Provides a handler with the current request's context and the services its Layer was built with. */
export const runHandler = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  captured: Context.Context<Exclude<R, RequestContext>>,
  request: RequestContextService
): Effect.Effect<A, E> =>
  Effect.provide(effect, Context.add(captured as Context.Context<never>, RequestContext, request)) as Effect.Effect<
    A,
    E
  >
