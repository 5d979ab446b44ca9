/**
 * The MCP endpoint as one function of a request: the request guard, then by HTTP method and era the module that
 * serves it (a POST's `Accept`, `Content-Type` and body are checked first, and on a protected endpoint the scopes its
 * request requires).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Media from "../media.js"
import * as Era from "./era.js"
import type { Incoming, Reply } from "./exchange.js"
import type { Handshake } from "./handshake.js"
import type { JsonBody } from "./jsonBody.js"
import * as Replies from "./reply.js"
import type { RequestGuard } from "./requestGuard.js"
import type { ScopeCheck } from "./scopeCheck.js"
import type { StatelessPost } from "./stateless.js"

const notUnderStateless = Replies.methodNotAllowed("Method not allowed under 2026-07-28", "POST")
const notAllowed = Replies.methodNotAllowed("Method not allowed", "GET, POST, DELETE")

/** The endpoint made of its guard, its body reader and the modules of each era. */
export const make = (
  guard: RequestGuard,
  jsonBody: JsonBody,
  handshake: Handshake,
  statelessPost: StatelessPost,
  scopeCheck: ScopeCheck | undefined
) =>
(request: Incoming): Effect.Effect<Reply> =>
  Effect.flatMap(guard(request), (auth) => {
    if (Either.isLeft(auth)) return Effect.succeed(auth.left)
    const version = request.headers["mcp-protocol-version"]
    switch (request.method) {
      case "POST": {
        const accept = Media.accepted(request.headers["accept"])
        if (!accept.json && !accept.sse) return Effect.succeed(Replies.notAcceptable)
        if (!Media.isJson(request.headers["content-type"])) return Effect.succeed(Replies.unsupportedMediaType)
        return Effect.flatMap(jsonBody(request), (parsed) => {
          if (Either.isLeft(parsed)) return Effect.succeed(parsed.left)
          const body = parsed.right
          const refused = scopeCheck?.(body, auth.right)
          if (refused !== undefined) return Effect.succeed(refused)
          return Era.isStatelessPost(body, version)
            ? statelessPost(request, body, auth.right, accept)
            : handshake.post(request, body, auth.right, accept)
        })
      }
      case "GET":
        return Era.isStatelessHeader(version) ? Effect.succeed(notUnderStateless) : handshake.get(request, auth.right)
      case "DELETE":
        return Era.isStatelessHeader(version)
          ? Effect.succeed(notUnderStateless)
          : handshake.delete(request, auth.right)
      default:
        return Effect.succeed(notAllowed)
    }
  })
