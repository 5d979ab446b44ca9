/**
 * The checks every route makes before it reads a body: DNS-rebinding protection (the `Host` and `Origin` headers
 * against their allow-lists) and authentication (the `authenticate` hook, answered 401/403 with a challenge, or 503
 * when it could not check the token).
 */
import type { Transport } from "@effect-mcp/core"
import { McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Guards from "../guards.js"
import * as Auth from "./auth.js"
import { type Config, localHosts } from "./config.js"
import type { Incoming, Reply, RequestHead } from "./exchange.js"
import * as Metadata from "./metadata.js"
import * as Replies from "./reply.js"

/** Checks a request: its identity (undefined: anonymous), or the refusal to answer. */
export type RequestGuard = (
  request: Incoming
) => Effect.Effect<Either.Either<Transport.AuthInfo | undefined, Reply>>

const badHost = Replies.error(403, McpError.serverError("Forbidden: invalid Host header"))
const badOrigin = Replies.error(403, McpError.serverError("Forbidden: invalid Origin header"))

/** The DNS-rebinding checks alone (`Host`, then `Origin`): the refusal, or undefined when the request may pass. */
export type Door = (request: RequestHead) => Reply | undefined

/** The DNS-rebinding checks of an endpoint (which a CORS preflight also passes through). */
export const door = (config: Config): Door => {
  const { options } = config
  if (options.dnsRebindingProtection === false) return () => undefined
  const allowedHosts = (options.allowedHosts ?? localHosts).map((h) => h.toLowerCase())
  return (request) =>
    !Guards.hostAllowed(allowedHosts, request.headers["host"])
      ? badHost
      : !Guards.originAllowed(localHosts, options.allowedOrigins, request.headers["origin"])
      ? badOrigin
      : undefined
}

/** The guard of an endpoint. */
export const make = (config: Config): RequestGuard => {
  const { options } = config
  const checkDoor = door(config)
  const metadataUrl = options.protectedResource === undefined ? undefined : Metadata.url(options.protectedResource)
  const authenticate = options.authenticate
  const anonymous = Effect.succeed(Either.right(undefined))
  return (request) => {
    const refused = checkDoor(request)
    if (refused !== undefined) return Effect.succeed(Either.left(refused))
    if (authenticate === undefined) return anonymous
    return Effect.match(authenticate(request), {
      onSuccess: (auth) => Either.right(auth),
      onFailure: (error) =>
        Either.left(error._tag === "AuthUnavailable" ? Auth.unavailable(error) : Auth.challenge(error, metadataUrl))
    })
  }
}
