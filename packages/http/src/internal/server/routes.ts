/** The paths an endpoint serves, and finding the route of a request by its path (the query aside) and method. */
import * as Effect from "effect/Effect"
import type { Incoming, Reply } from "./exchange.js"
import * as Replies from "./reply.js"

/** One path the endpoint serves. */
export interface Route {
  readonly path: string
  /** The one method it answers, or any. */
  readonly method: "GET" | "POST" | undefined
  readonly handle: (request: Incoming) => Effect.Effect<Reply>
}

/** The routes as one function of a request: 404 for a path (or a method) none of them serves. */
export const dispatch = (routes: ReadonlyArray<Route>): (request: Incoming) => Effect.Effect<Reply> => {
  const byPath = new Map(routes.map((r) => [r.path, r]))
  const missing = Effect.succeed(Replies.notFound)
  return (request) => {
    const query = request.url.indexOf("?")
    const route = byPath.get(query === -1 ? request.url : request.url.slice(0, query))
    return route === undefined || (route.method !== undefined && route.method !== request.method)
      ? missing
      : route.handle(request)
  }
}
